package devices_test

import (
	"fmt"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/sim"
)

type pages struct{ done int64 }

func (p *pages) EndIO(cookie uint64, index, n int64, op devices.Op) { p.done += n }

// A task writes 64 MiB sequentially under a plug, blocking whenever the queue is full.
func Example() {
	w := sim.NewWorld(1000, 1)
	spec, blkKeys, _ := devices.ParseSpec("wu2011-hdd,wbt=on")
	blk, _ := blkKeys.Apply(devices.LegacyBlock(spec, 512)) // the v3.2 block layer, with wbt on
	q, _ := devices.New(w, spec, blk)
	owner := &pages{}
	task := w.NewTask("flush-8:0", 1, nil)
	s := q.NewSubmitter(task)
	var next int64
	task.Resume = func() {
		s.StartPlug()
		for next < 16384 {
			b := devices.Bio{Sector: next * devices.PageSectors, Pages: 256, Op: devices.Write,
				Flags: devices.FlagBackground, Owner: owner, Index: next}
			next += 256
			if q.Submit(s, b) {
				return // resumed when the whole bio has requests
			}
		}
		s.FinishPlug()
	}
	task.Start()
	before := q.Stats()
	_ = w.Run(10 * sim.Second)
	r := devices.Rates(before, q.Stats(), 0)
	st := q.WBT()
	fmt.Printf("%d pages written, wbt %d/%d/%d, avgrq-sz %.0f\n", owner.done, st.Max, st.Normal, st.Background, r.AvgRqSz)
	// Output: 16384 pages written, wbt 16/8/4, avgrq-sz 1024
}
