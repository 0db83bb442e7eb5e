//go:build !(js && wasm)

package ui

// Host stubs: the lab runs only in a browser; these keep the package building natively.

// NewEngine returns an engine that reports every run as failed.
func NewEngine(max int, onMsg func(Msg)) Engine { return hostEngine{onMsg} }

type hostEngine struct{ onMsg func(Msg) }

func (e hostEngine) Run(id int, _ string, _ bool) {
	e.onMsg(Msg{Type: "error", ID: id, Message: "no browser workers outside WebAssembly"})
}
func (hostEngine) Cancel(int)   {}
func (hostEngine) Workers() int { return 1 }

func Cores() int                        { return 1 }
func DrawChart(elID, opts, data string) {}
func ChartAlive(string) bool            { return true }
func SyncInputs()                       {}
func Hash() string                      { return "" }
func SetHash(string)                    {}
func PageURL() string                   { return "" }
func Copy(string)                       {}
func Download(name, mime, text string)  {}
func OnHashChange(func(string))         {}
func FocusElement(string)               {}
func UpdateChart(elID, data string)     {}
func OnChartTime(func(float64))         {}
func MarkTime(float64)                  {}
