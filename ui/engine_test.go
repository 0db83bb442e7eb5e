package ui

import (
	"fmt"
	"github.com/wblab/wblab/ui/wire"
	"os"
	"testing"

	enginelab "github.com/wblab/wblab/lab"
)

// The page's tests ask the engine in-process (lab.Answer), as the browser asks
// the engine worker.
func TestMain(m *testing.M) {
	SetAsker(enginelab.Answer)
	if err := LoadCatalog(); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// defaultRun is the default form's run as the engine checks it.
func defaultRun() wire.Run {
	var ck wire.Checked
	if err := Ask("check", wire.Check{State: State{Form: Cat.Default.Clone()}}, &ck); err != nil || ck.A == nil {
		panic(fmt.Sprint("default form: ", err, ck.Err))
	}
	return *ck.A
}
