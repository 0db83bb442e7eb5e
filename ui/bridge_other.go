//go:build !(js && wasm)

package ui

// Host stubs: the lab runs only in a browser; these keep the package building natively.

import (
	"errors"
	"time"
)

// NewEngine returns an engine that reports every run as failed.
func NewEngine(max int) Engine { return &hostEngine{} }

type hostEngine struct{ onMsg func(Msg) }

func (e *hostEngine) Run(id int, _ string, _ bool) {
	if e.onMsg != nil {
		e.onMsg(Msg{Type: "error", ID: id, Message: "no browser workers outside WebAssembly"})
	}
}
func (*hostEngine) Cancel(int)          {}
func (*hostEngine) Workers() int        { return 1 }
func (e *hostEngine) OnMsg(f func(Msg)) { e.onMsg = f }
func (*hostEngine) Ask(string, []byte) ([]byte, error) {
	return nil, errors.New("no engine worker outside WebAssembly")
}
func (e *hostEngine) Catalog() ([]byte, error) { return e.Ask("catalog", nil) }
func (*hostEngine) Prerendered() bool          { return false }

func Cores() int                             { return 1 }
func BootFailed(string)                      {}
func DrawChart(elID, opts, data string)      {}
func ChartAlive(string) bool                 { return true }
func SyncInputs()                            {}
func Hash() string                           { return "" }
func SetHash(string)                         {}
func PageURL() string                        { return "" }
func Copy(string)                            {}
func Download(name, mime, text string)       {}
func OnHashChange(func(string))              {}
func FocusElement(string)                    {}
func Layout()                                {}
func UpdateChart(elID, data string)          {}
func OnChartTime(func(float64))              {}
func MarkTime(float64)                       {}
func Yield()                                 {}
func Took(string, time.Time)                 {}
func SetProgress(string, string)             {}
func Filled(string, string) bool             { return true }
func FillHTML(string, string, func() string) {}
func OnTracePick(func(float64))              {}
func PatchMatrix(string) bool                { return false }
