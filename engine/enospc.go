package engine

import (
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/report"
)

// fullAt is when disk i's filesystem filled (a write() first failed with ENOSPC),
// in seconds; ok false when it did not.
func (m *Machine) fullAt(i int) (s float64, ok bool) {
	bdis := m.k.BDIs()
	if i >= len(bdis) {
		return 0, false
	}
	sr, isSR := bdis[i].FS.(kernel.SpaceReserver)
	if !isSR {
		return 0, false
	}
	at, full := sr.FullAt()
	return at.Seconds(), full
}

// fullResults fills Result.Full: each disk whose filesystem filled, with the dd
// that exited and the editor saves that failed with ENOSPC.
func (m *Machine) fullResults(r *Result) {
	for i, b := range m.k.BDIs() {
		at, ok := m.fullAt(i)
		if !ok {
			continue
		}
		f := report.DiskFull{BDI: b.Name, FullAtS: at}
		for j, d := range m.dds {
			if m.ddDisk[j] == i && d.Enospc {
				f.DDEnospc++
			}
		}
		for j, e := range m.eds {
			if m.edDisk[j] == i {
				f.EditorEnospc += e.Enospc
			}
		}
		r.Full = append(r.Full, f)
	}
}
