//go:build !(js && wasm)

// Command vugujs writes Vugu's DOM renderer script (domrender's jsHelperScript) to a
// file, so the page can load it instead of letting domrender.New eval it under a CSP
// without 'unsafe-eval'. Usage: vugujs VUGU_MODULE_DIR OUT.js
//
// It also makes the script leave the DOM alone where a render changes nothing
// (lighter): Vugu sends every attribute, text and inner HTML of the page at every
// render, and the script set each one again, so every render restyled and laid out
// the whole page (Wu's T1 matrix in the page: 51 renders, 15 s of main-thread time
// on the shared 2-core machine, PERFORMANCE.md Round 5). The edits skip a
// setAttribute, textContent or innerHTML write whose value the element already has;
// each must match the script exactly, so a Vugu upgrade that changes it fails here.
// Two more let Vugu's first render keep the first page's snapshot (static/first.html)
// as it is.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: vugujs VUGU_MODULE_DIR OUT.js")
		os.Exit(2)
	}
	src := filepath.Join(os.Args[1], "domrender", "renderer-js-script.go")
	f, err := parser.ParseFile(token.NewFileSet(), src, nil, 0)
	if err != nil {
		fail(err)
	}
	var script string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "jsHelperScript" {
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
				script, err = strconv.Unquote(lit.Value)
			}
		}
		return true
	})
	if err != nil || script == "" {
		fail(fmt.Errorf("jsHelperScript not found in %s (%v)", src, err))
	}
	for _, e := range lighter {
		if n := strings.Count(script, e.old); n != e.n {
			fail(fmt.Errorf("%s: %q found %d times, want %d (Vugu's renderer script changed)", e.why, e.old, n, e.n))
		}
		script = strings.ReplaceAll(script, e.old, e.new)
	}
	if err := os.WriteFile(os.Args[2], []byte(script+"\n"), 0o644); err != nil {
		fail(err)
	}
}

// lighter are the script's edits: each old text occurs n times.
var lighter = []struct {
	why, old, new string
	n             int
}{
	{"set an attribute only when it differs",
		`e.setAttribute(t,n),x.elAttrNames[t]=!0`,
		`e.getAttribute(t)!==n&&e.setAttribute(t,n),x.elAttrNames[t]=!0`, 1},
	{"set a text or comment node only when it differs",
		`else x.el.textContent=e;break}`,
		`else x.el.textContent!==e&&(x.el.textContent=e);break}`, 2},
	// Plain text (no '<', '&', CR or NUL: the HTML parser makes it one text node,
	// or none when empty) is compared with the element's text node and set as
	// textContent, which gives the same DOM without the HTML parser, and without
	// reading innerHTML back (a serialization) at every render; Vugu sends every
	// vg-content and every static text as inner HTML. Other HTML is set only when
	// it differs from what this script set last and the element still holds what
	// that made (other instructions may have replaced the children since).
	{"set inner HTML only when it differs; plain text as textContent",
		`x.el.innerHTML=(x.bufferedInnerHTML||"")+e,x.bufferedInnerHTML=null`,
		`((h,t)=>{if(t.namespaceURI==="http://www.w3.org/1999/xhtml"&&!/[<&\r\0]/.test(h)){const c=t.firstChild;if(h===""?c===null:c!==null&&c===t.lastChild&&c.nodeType===3&&c.data===h)return;t.textContent=h,t.__vuguHTML=null;return}if(t.__vuguHTML===undefined&&t.firstChild!==null){const p=document.createElement("template");p.innerHTML=h;if(p.innerHTML===t.innerHTML){t.__vuguHTML=h,t.__vuguOut=p.innerHTML;return}}t.__vuguHTML===h&&t.innerHTML===t.__vuguOut||(t.innerHTML=h,t.__vuguHTML=h,t.__vuguOut=t.innerHTML)})((x.bufferedInnerHTML||"")+e,x.el),x.bufferedInnerHTML=null`, 1},
	// The first page's snapshot (static/first.html, ui.Snapshot) is HTML: where
	// Vugu's tree has adjacent text nodes (whitespace around an element left out by
	// vg-if), the HTML parser made one. A text node that is the expected text and
	// whitespace after it is split there; the rest is the next (stale) node, which
	// the next instruction reuses, replaces or removes. (Above: an element this
	// script never set, holding children, keeps them when they serialize as the
	// inner HTML would: the snapshot's.)
	{"keep the snapshot's text nodes: split merged whitespace",
		`if(x.el.nodeType!=3){let t=document.createTextNode(e);x.el.parentNode.replaceChild(t,x.el),x.el=t}else x.el.textContent!==e&&(x.el.textContent=e);break}`,
		`if(x.el.nodeType!=3){let t=document.createTextNode(e);x.el.parentNode.replaceChild(t,x.el),x.el=t}else{const d=x.el.data;d.length>e.length&&d.startsWith(e)&&/^\s+$/.test(d.slice(e.length))?x.el.splitText(e.length):d!==e&&(x.el.textContent=e)}break}`, 1},
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "vugujs:", err)
	os.Exit(1)
}
