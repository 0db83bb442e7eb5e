package ui

import (
	"encoding/json"
	"fmt"

	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/ui/wire"
)

// SweepView is the sweep mode: write_bw against the dirty threshold (8M … 1G) for 1,
// 2, 10 and 100 dd on the chosen filesystems, every run on the form's machine
// (kernel, device, run length, seed), drawn as one chart per filesystem with its
// table and what it shows.
type SweepView struct {
	FSOff map[string]bool // filesystems left out (all the sweep's are in by default)
	S     *Sweep

	planning bool
	cells    map[int]int // run id -> cell index
	lab      *Root
}

// SweepFS is the sweep's filesystems, in the harness's order (the engine's catalog).
func SweepFS() []string { return Cat.SweepFilesystems }

// Shown reports whether the page is in sweep mode.
func (c *SweepView) Shown() bool { return c.lab.Mode == "sweep" }

// Checked reports whether fs is in the sweep.
func (c *SweepView) Checked(fs string) bool { return !c.FSOff[fs] }

// Toggle puts fs in or out of the next sweep.
func (c *SweepView) Toggle(fs string) {
	if c.FSOff == nil {
		c.FSOff = map[string]bool{}
	}
	c.FSOff[fs] = !c.FSOff[fs]
}

// Runs is the number of runs the next sweep makes (with the "5 seeds" switch's seeds).
func (c *SweepView) Runs() int {
	n := 0
	for _, fs := range SweepFS() {
		if c.Checked(fs) {
			n++
		}
	}
	return n * len(Cat.SweepThresholdsMB) * len(Cat.SweepWriters) * max(c.lab.Seeds.N, 1)
}

// start asks the engine for the sweep's runs on the checked filesystems and
// starts them (with the event lock held; the plan comes on another goroutine).
func (c *SweepView) start(st State) {
	var fss []string
	for _, fs := range SweepFS() {
		if c.Checked(fs) {
			fss = append(fss, fs)
		}
	}
	if len(fss) == 0 {
		c.lab.Form.Errs["sweep"] = "sweep: choose at least one filesystem"
		return
	}
	q := wire.SweepPlan{State: st, Filesystems: fss, Seeds: st.Seeds}
	var p wire.SweepPlanned
	c.lab.askPlan("sweep", q, &p, &c.planning, func(err error) {
		switch {
		case err != nil:
			c.lab.Form.Errs["sweep"] = "engine: " + err.Error()
		case p.Err != nil:
			c.lab.Form.setErr(p.Err)
		default:
			c.run(p)
		}
	})
}

// run starts a planned sweep's runs (summaries: write_bw, iostat, the disk's head).
func (c *SweepView) run(p wire.SweepPlanned) {
	c.S = NewSweep(p)
	c.cells = map[int]int{}
	for i, r := range p.Runs {
		rs := c.lab.w.Start(wire.Run{Config: r.Config}, true)
		c.cells[rs.ID] = i
	}
}

func (c *SweepView) running() bool {
	return c.planning || (c.S != nil && c.S.Finished() < len(c.S.Cells))
}

func (c *SweepView) cancel() {
	c.planning = false
	for id, i := range c.cells {
		c.lab.w.Cancel(id)
		if c.S != nil && !c.S.CellOf(i).Done {
			c.S.CellOf(i).Err = "cancelled"
		}
	}
	c.cells = map[int]int{}
}

func (c *SweepView) owns(id int) bool { _, ok := c.cells[id]; return ok }

// onMsg applies a message about a cell; progress renders nothing.
func (c *SweepView) onMsg(m Msg) bool {
	i := c.cells[m.ID]
	if c.S == nil {
		return false
	}
	switch m.Type {
	case "result":
		var r report.Result
		if err := json.Unmarshal([]byte(m.Result), &r); err != nil {
			c.S.CellOf(i).Err = err.Error()
		} else {
			c.S.set(i, &r)
		}
		delete(c.cells, m.ID)
	case "error":
		c.S.CellOf(i).Err = m.Message
		delete(c.cells, m.ID)
	}
	return m.Type != "progress"
}

// Status is the status line in sweep mode.
func (c *SweepView) Status() string {
	if c.S == nil {
		return "ready"
	}
	n := 0
	for _, x := range c.S.Cells {
		if x.Err == "cancelled" {
			n++
		}
	}
	what, seeds := "runs", ""
	if k := c.S.Plan.Seeds; k > 1 {
		what, seeds = "cells", fmt.Sprintf("%d seeds each, %d of %d runs; ", k, c.S.RunsDone(), len(c.S.Plan.Runs))
	}
	if n > 0 {
		return fmt.Sprintf("sweep: %d of %d %s finished, %d cancelled (%s%s, %s, %.0f s each)", c.S.Finished()-n, len(c.S.Cells), what, n,
			seeds, c.S.Plan.Kernel, c.S.Plan.Device, c.S.Plan.RuntimeS)
	}
	return fmt.Sprintf("sweep: %d of %d %s finished (%s%s, %s, %.0f s each)", c.S.Finished(), len(c.S.Cells), what,
		seeds, c.S.Plan.Kernel, c.S.Plan.Device, c.S.Plan.RuntimeS)
}

func (c *SweepView) progress() float64 {
	if c.S == nil || len(c.S.Plan.Runs) == 0 {
		return 0
	}
	return float64(c.S.RunsDone()) / float64(len(c.S.Plan.Runs))
}

// Err is the sweep's error (no filesystem chosen, the engine's answer).
func (c *SweepView) Err() string { return c.lab.Form.Err("sweep") }

// SweepFSView is one filesystem's part of the sweep: chart, table, text.
type SweepFSView struct {
	FS, Chart, Text string
	Rows            [][]string
}

// Views are the planned filesystems' charts, tables and texts.
func (c *SweepView) Views() []SweepFSView {
	if c.S == nil {
		return nil
	}
	var out []SweepFSView
	for _, fs := range c.S.Plan.Filesystems {
		out = append(out, SweepFSView{FS: fs, Chart: SweepChart(c.S, fs), Text: SweepText(c.S, fs), Rows: SweepRows(c.S, fs)})
	}
	return out
}

// Writers are the sweep's dd counts (the table's columns).
func (c *SweepView) Writers() []int {
	if c.S == nil {
		return nil
	}
	return c.S.Plan.Writers
}
