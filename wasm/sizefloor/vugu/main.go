//go:build js && wasm

// Command vugu is the smallest Vugu page (one element, Vugu's DOM renderer and build
// environment, the loop wasm/main.go runs): the size floor of a Vugu UI module,
// measured by ./build.sh sizes (PERFORMANCE.md).
package main

import (
	"github.com/vugu/vugu"
	"github.com/vugu/vugu/domrender"
)

type root struct{}

func (r *root) Build(vgin *vugu.BuildIn) *vugu.BuildOut {
	n := &vugu.VGNode{Type: vugu.ElementNode, Data: "div"}
	n.AppendChild(&vugu.VGNode{Type: vugu.TextNode, Data: "vugu"})
	return &vugu.BuildOut{Out: []*vugu.VGNode{n}}
}

func main() {
	renderer, err := domrender.New("#vugu_mount_point")
	if err != nil {
		panic(err)
	}
	defer renderer.Release()
	env, err := vugu.NewBuildEnv(renderer.EventEnv())
	if err != nil {
		panic(err)
	}
	r := &root{}
	for ok := true; ok; ok = renderer.EventWait() {
		if err := renderer.Render(env.RunBuild(r)); err != nil {
			panic(err)
		}
	}
}
