package engine

import (
	"strings"

	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// MaxDetailInodes and MaxDetailTasks bound a Detail.
const (
	MaxDetailInodes = 128
	MaxDetailTasks  = 128
)

// detailRec accumulates a Detail at every series row.
type detailRec struct {
	d         Detail
	inos      map[uint64]int // kept inode -> index in d.Inodes
	prevCalls map[uint64][2]int64
	prevDirt  []int64
	prevT     sim.Time
	lists     [][]byte
	visited   [][]byte
	maxData   sim.Time
}

const hexDigits = "0123456789abcdef"

// sample records one row: called after the series row at now.
func (r *detailRec) sample(k *kernel.Kernel, threads []*kernel.Thread, now sim.Time) {
	if r.inos == nil {
		r.inos, r.prevCalls = map[uint64]int{}, map[uint64][2]int64{}
	}
	r.d.TimeS = append(r.d.TimeS, now.Seconds())
	row := len(r.d.TimeS) - 1
	for _, in := range k.Inodes() {
		r.maxData = max(r.maxData, in.OldestDirtyDataAge(now))
		i, ok := r.inos[in.Ino]
		if !ok {
			if len(r.d.Inodes) >= MaxDetailInodes {
				continue
			}
			i = len(r.d.Inodes)
			r.inos[in.Ino] = i
			r.d.Inodes = append(r.d.Inodes, InodeDetail{Ino: in.Ino,
				DirtyMB: make([]float64, row), WrotePerCall: make([]float64, row), DataAgeS: make([]float64, row)})
			r.lists = append(r.lists, []byte(strings.Repeat("-", row)))
			r.visited = append(r.visited, []byte(strings.Repeat("0", row)))
		}
		x := &r.d.Inodes[i]
		r.lists[i] = append(r.lists[i], listLetter(in.ListBit()))
		r.visited[i] = append(r.visited[i], hexDigits[in.TakeVisited()&15])
		x.DirtyMB = append(x.DirtyMB, mb(in.Dirty.Count()))
		st := in.Stats()
		prev := r.prevCalls[in.Ino]
		per := 0.0
		if n := st.WritebackCalls - prev[0]; n > 0 {
			per = float64(st.WrotePages-prev[1]) / float64(n)
		}
		r.prevCalls[in.Ino] = [2]int64{st.WritebackCalls, st.WrotePages}
		x.WrotePerCall = append(x.WrotePerCall, per)
		x.DataAgeS = append(x.DataAgeS, in.OldestDirtyDataAge(now).Seconds())
	}
	dt := (now - r.prevT).Seconds()
	for i, th := range threads {
		if i >= MaxDetailTasks {
			break
		}
		if i >= len(r.d.Tasks) {
			r.d.Tasks = append(r.d.Tasks, TaskDetail{PID: th.Task.PID, Comm: th.Task.Comm, RateMBps: make([]float64, row)})
			r.prevDirt = append(r.prevDirt, 0)
		}
		rate := 0.0
		if dt > 0 {
			rate = mb(th.Stats.Dirtied-r.prevDirt[i]) / dt
		}
		r.prevDirt[i] = th.Stats.Dirtied
		r.d.Tasks[i].RateMBps = append(r.d.Tasks[i].RateMBps, rate)
	}
	r.prevT = now
}

// result finishes the Detail (pause histograms as they end).
func (r *detailRec) result(threads []*kernel.Thread, k *kernel.Kernel) *Detail {
	for i := range r.d.Inodes {
		r.d.Inodes[i].Lists, r.d.Inodes[i].Visited = string(r.lists[i]), string(r.visited[i])
	}
	for i, th := range threads {
		if i < len(r.d.Tasks) {
			r.d.Tasks[i].PauseHist = append([]int64(nil), th.Stats.PauseHist[:]...)
		}
	}
	r.d.MoreInodes = max(len(k.Inodes())-len(r.d.Inodes), 0)
	r.d.MoreTasks = max(len(threads)-len(r.d.Tasks), 0)
	return &r.d
}

func listLetter(bit uint8) byte {
	switch bit {
	case kernel.OnBDirty:
		return 'd'
	case kernel.OnBIO:
		return 'i'
	case kernel.OnBMoreIO:
		return 'm'
	case kernel.OnBMoreIOWait:
		return 'w'
	}
	return '-'
}
