package validate

import (
	"fmt"
	"math"
	"strings"

	"github.com/wblab/wblab/engine"
)

// Harness 2 (work "mix", issue 33): writers that share a machine. One boot runs the
// scenario (every writer, and the editor, for run_s seconds; the kill; a timed final
// sync), then each writer alone for ctl_s seconds on the same disks and settings: its
// control. init.sh marks the parts with "E phase name=main|ctl-wN", "E kill" and one
// "E dd_exit w=wN" per writer.

// HeldRateFraction is how close to its disk's rate a lone writer must dirty for the
// disk, not the guest's CPU, to be its limit.
const HeldRateFraction = 0.9

// EditorAloneMaxS bounds the editor's mean save latency alone (its control: 4 KiB
// written and fsynced once a second on an otherwise idle disk, dd's start included).
// Above it, the guest's CPU, not writeback, makes the editor's latencies: a save on an
// idle 100 MiB/s disk moves a few blocks, milliseconds of throttled transfer.
const EditorAloneMaxS = 0.1

// HeldCPUShare is the share of one vCPU a lone writer's dd must have used (its
// utime + stime over the window, cpu_ticks) for the guest's CPU to be its limit.
// A dd bs=1M that neither reached its disk's rate nor the freerun point but used
// less than this was held by the kernel (a bdi over its threshold, a journal
// wait), not by the emulated CPU: logs recording cpu_ticks count it held.
const HeldCPUShare = 0.9

// userHZ is the guest's USER_HZ, the unit of /proc/PID/stat's utime and stime.
const userHZ = 100

// EditorControl is the editor alone (the "ctl-editor" phase).
type EditorControl struct {
	Saves       int
	MeanS, MaxS float64
}

// Phase is one part of a harness 2 boot: the scenario ("main") or a control ("ctl-wN").
type Phase struct {
	Name   string
	StartT float64            // guest uptime at "E phase"
	KillT  float64            // at "E kill" (0: none)
	ExitT  map[string]float64 // each writer's "E dd_exit"
	RC     map[string]string  // and its exit status (143: killed by SIGTERM)
}

// Control is one writer alone (a "ctl-wN" phase), over its window: from a third of
// the phase to the kill.
type Control struct {
	Writer           Writer
	Window           Window  // seconds since the phase started
	MBps             float64 // the writer's dirtying rate (its file's growth)
	DiskThrottleMBps float64 // its disk's QEMU throttle
	DiskMBps         float64 // its disk's write rate (iostat)
	DirtyWritebackMB float64 // mean global dirty + writeback
	FreerunMB        float64 // mean (thresh + bg_thresh) / 2, global
	BdiDirtyMB       float64 // mean dirty + writeback of the writer's bdi
	BdiThreshMB      float64 // mean BdiDirtyThresh of the writer's bdi
	ReachedDisk      bool    // MBps >= HeldRateFraction * DiskThrottleMBps
	ReachedKernel    bool    // global dirty+writeback at or above the freerun point
	CPUShare         float64 // the writer's dd CPU time over the window, in vCPUs
	CPURecorded      bool    // the log records cpu_ticks (CPUShare is known)
}

// Mix is what a harness 2 run measured over the scenario's window (a third of the run
// to its end, seconds since the writers started) and its held check.
type Mix struct {
	Writers      []Writer
	Editor       string // the editor's mount (a: vda), "" without one
	Window       Window
	WriterMBps   []float64 // each writer's dirtying rate in the window
	DiskMBps     []float64 // each disk's write rate (iostat) in the window
	DiskUtil     []float64 // each disk's busy fraction (io_ticks) in the window
	BdiDirtyMB   []float64 // each disk's bdi: mean BdiReclaimable + BdiWriteback
	BdiThreshMB  []float64 // each disk's bdi: mean BdiDirtyThresh
	Fsyncs       int       // the editor's saves started before the kill
	FsyncMeanS   float64
	FsyncMaxS    float64
	FsyncSyncMax float64   // the longest save started during the final sync
	Fsync        Latencies // the saves started before the kill: mean and quantiles
	ExitS        []float64 // each writer's exit after the kill (-1: it had ended before)
	SyncS        float64   // the final sync
	Controls     []Control
	EditorAlone  *EditorControl // nil: no editor, or no control of it
	Held         bool
	Reason       string // why held or not, one line
}

// phases reads the phase events of a harness 2 log.
func (l *Log) phases() []Phase {
	var ps []Phase
	for _, e := range l.Events {
		switch e.Kind {
		case "phase":
			ps = append(ps, Phase{Name: e.Fields["name"], StartT: e.T, ExitT: map[string]float64{}, RC: map[string]string{}})
		case "kill":
			if len(ps) > 0 {
				ps[len(ps)-1].KillT = e.T
			}
		case "dd_exit":
			if len(ps) > 0 {
				ps[len(ps)-1].ExitT[e.Fields["w"]] = e.T
				ps[len(ps)-1].RC[e.Fields["w"]] = e.Fields["rc"]
			}
		}
	}
	return ps
}

// samplesIn are the samples with guest uptime in [a, b].
func (l *Log) samplesIn(a, b float64) []Sample {
	var s []Sample
	for _, sm := range l.Samples {
		if sm.T >= a-1e-9 && sm.T <= b+1e-9 {
			s = append(s, sm)
		}
	}
	return s
}

// rateMBps is the growth of v from the first sample to the last over their time apart.
func rateMBps(s []Sample, v func(Sample) float64) float64 {
	a, b := s[0], s[len(s)-1]
	if b.T <= a.T {
		return 0
	}
	return (v(b) - v(a)) / (b.T - a.T)
}

func meanOf(s []Sample, v func(Sample) float64) float64 {
	sum := 0.0
	for _, sm := range s {
		sum += v(sm)
	}
	return sum / float64(len(s))
}

func (l *Log) diskThrottleMBps(name string) float64 {
	for _, d := range l.Disks {
		if d.Name == name {
			return float64(d.ThrottleBps) / (1 << 20)
		}
	}
	return 0
}

func ddMB(w string) func(Sample) float64 {
	return func(s Sample) float64 { return float64(s.DD[w]) / (1 << 20) }
}
func wsectMB(d string) func(Sample) float64 {
	return func(s Sample) float64 { return float64(s.Blk[d]["wsect"]) * sectorSize / (1 << 20) }
}
func bdiDirtyMB(d string) func(Sample) float64 {
	return func(s Sample) float64 {
		return float64(s.BDI[d]["BdiReclaimable"]+s.BDI[d]["BdiWriteback"]) / kBPerMB
	}
}
func bdiThreshMB(d string) func(Sample) float64 {
	return func(s Sample) float64 { return float64(s.BDI[d]["BdiDirtyThresh"]) / kBPerMB }
}
func dirtyWritebackMB(s Sample) float64 {
	return float64(s.VM["nr_dirty"]+s.VM["nr_writeback"]) / pagesPerMB
}
func freerunMB(s Sample) float64 {
	return float64(s.VM["nr_dirty_threshold"]+s.VM["nr_dirty_background_threshold"]) / 2 / pagesPerMB
}

// MixOf derives a harness 2 run's figures and its held check from the log: the run is
// held when every writer, alone on the same setup (its control), dirtied at least
// HeldRateFraction of its disk's throttle or reached the kernel's limit (global
// dirty+writeback at or above the freerun point, (thresh + bg_thresh) / 2, where
// balance_dirty_pages starts throttling), and the editor alone saved within
// EditorAloneMaxS; otherwise the guest's CPU, not the disk or the kernel, was the
// limit, and the scenario's figures measure the emulator.
func MixOf(l *Log) (Mix, error) {
	c, err := CaseOf(l)
	if err != nil {
		return Mix{}, err
	}
	if c.Work != "mix" {
		return Mix{}, fmt.Errorf("%s: work %q is not harness 2's mix", l.Name, c.Work)
	}
	if len(l.Writers) == 0 {
		return Mix{}, fmt.Errorf("%s: no H writer= line", l.Name)
	}
	m := Mix{Writers: l.Writers, Window: SteadyWindow(c.RunS)}
	if e := l.Header["editor"]; e != "" && e != "none" {
		m.Editor = e
	}
	ps := l.phases()
	var main *Phase
	ctl := map[string]*Phase{}
	for i := range ps {
		switch p := &ps[i]; {
		case p.Name == "main":
			main = p
		case strings.HasPrefix(p.Name, "ctl-"):
			ctl[strings.TrimPrefix(p.Name, "ctl-")] = p
		}
	}
	if main == nil || main.KillT == 0 {
		return Mix{}, fmt.Errorf("%s: no main phase with its kill", l.Name)
	}
	s := l.samplesIn(l.StartT+m.Window.FromS, l.StartT+m.Window.ToS)
	if len(s) < 2 {
		return Mix{}, fmt.Errorf("%s: window %s holds %d samples, want at least 2", l.Name, m.Window, len(s))
	}
	for _, w := range l.Writers {
		m.WriterMBps = append(m.WriterMBps, rateMBps(s, ddMB(w.Name)))
		x, ok := main.ExitT[w.Name]
		switch {
		case !ok:
			return Mix{}, fmt.Errorf("%s: no dd_exit of %s in the main phase", l.Name, w.Name)
		case x < main.KillT:
			m.ExitS = append(m.ExitS, -1)
		default:
			m.ExitS = append(m.ExitS, x-main.KillT)
		}
	}
	for _, d := range l.Disks {
		m.DiskMBps = append(m.DiskMBps, rateMBps(s, wsectMB(d.Name)))
		_, util, err := l.DiskRateOf(d.Name, m.Window)
		if err != nil {
			util = 0 // idle through the window
		}
		m.DiskUtil = append(m.DiskUtil, util)
		m.BdiDirtyMB = append(m.BdiDirtyMB, meanOf(s, bdiDirtyMB(d.Name)))
		m.BdiThreshMB = append(m.BdiThreshMB, meanOf(s, bdiThreshMB(d.Name)))
	}
	// the final sync: its line comes when it ended, after the saves made during it
	synced := false
	var syncT float64
	for _, e := range l.Events {
		if e.Kind == "sync" && !synced {
			if m.SyncS, err = floatField(e.Fields, "sync_s"); err != nil {
				return Mix{}, fmt.Errorf("%s: sync: %w", l.Name, err)
			}
			synced, syncT = true, e.T
		}
	}
	var lats []float64
	for _, e := range l.Events {
		switch e.Kind {
		case "fsync":
			v, err := floatField(e.Fields, "latency_s")
			if err != nil {
				return Mix{}, fmt.Errorf("%s: fsync: %w", l.Name, err)
			}
			switch {
			case e.T >= main.StartT && e.T < main.KillT:
				m.Fsyncs++
				lats = append(lats, v)
				m.FsyncMeanS += v
				m.FsyncMaxS = math.Max(m.FsyncMaxS, v)
			case synced && e.T >= syncT && e.T <= syncT+m.SyncS:
				m.FsyncSyncMax = math.Max(m.FsyncSyncMax, v)
			}
		}
	}
	if !synced {
		return Mix{}, fmt.Errorf("%s: no final sync event", l.Name)
	}
	if m.Fsyncs > 0 {
		m.FsyncMeanS /= float64(m.Fsyncs)
	}
	m.Fsync = latenciesOf(lats)
	ctlS, _ := floatField(l.Header, "ctl_s")
	for _, w := range l.Writers {
		p := ctl[w.Name]
		if p == nil || p.KillT == 0 {
			continue
		}
		cw := Window{FromS: math.Round(ctlS / 3), ToS: math.Round(100*(p.KillT-p.StartT)) / 100}
		cs := l.samplesIn(p.StartT+cw.FromS, p.KillT)
		if len(cs) < 2 {
			continue
		}
		k := Control{Writer: w, Window: cw, MBps: rateMBps(cs, ddMB(w.Name)), DiskThrottleMBps: l.diskThrottleMBps(w.Disk),
			DiskMBps: rateMBps(cs, wsectMB(w.Disk)), DirtyWritebackMB: meanOf(cs, dirtyWritebackMB), FreerunMB: meanOf(cs, freerunMB),
			BdiDirtyMB: meanOf(cs, bdiDirtyMB(w.Disk)), BdiThreshMB: meanOf(cs, bdiThreshMB(w.Disk))}
		k.ReachedDisk = k.MBps >= HeldRateFraction*k.DiskThrottleMBps
		// 6.1's balance_dirty_pages leaves a writer alone below the global freerun
		// point, whatever its bdi's share (max_ratio) says, unless strictlimit is set
		k.ReachedKernel = k.DirtyWritebackMB >= k.FreerunMB
		k.CPUShare, k.CPURecorded = cpuShare(cs, w.Name)
		m.Controls = append(m.Controls, k)
	}
	if p := ctl["editor"]; p != nil && p.KillT > 0 && m.Editor != "" {
		ec := &EditorControl{}
		for _, e := range l.Events {
			if e.Kind != "fsync" || e.T < p.StartT || e.T > p.KillT {
				continue
			}
			v, err := floatField(e.Fields, "latency_s")
			if err != nil {
				return Mix{}, fmt.Errorf("%s: fsync: %w", l.Name, err)
			}
			ec.Saves++
			ec.MeanS += v
			ec.MaxS = math.Max(ec.MaxS, v)
		}
		if ec.Saves > 0 {
			ec.MeanS /= float64(ec.Saves)
			m.EditorAlone = ec
		}
	}
	m.Held, m.Reason = heldCheck(m)
	return m, nil
}

// heldCheck is the verdict on a harness 2 run and its reason.
// cpuShare is writer w's dd CPU time over samples s in vCPUs (cpu_ticks over the
// time between the first and the last sample recording it), and whether recorded.
func cpuShare(s []Sample, w string) (float64, bool) {
	var t0, t1 float64
	var c0, c1 int64
	n := 0
	for _, x := range s {
		c, ok := x.DDCPU[w]
		if !ok {
			continue
		}
		if n == 0 {
			t0, c0 = x.T, c
		}
		t1, c1 = x.T, c
		n++
	}
	if n < 2 || t1 <= t0 {
		return 0, false
	}
	return float64(c1-c0) / userHZ / (t1 - t0), true
}

func heldCheck(m Mix) (bool, string) {
	for i, w := range m.Writers {
		if w.CountMiB == 0 && m.ExitS[i] < 0 {
			return false, fmt.Sprintf("not held: %s ended before the kill (a full disk?)", w.Name)
		}
	}
	if len(m.Controls) < len(m.Writers) {
		return false, fmt.Sprintf("not held: %d of %d writers have a control (writer alone)", len(m.Controls), len(m.Writers))
	}
	if m.Editor != "" && m.EditorAlone == nil {
		return false, "not held: the editor has no control (editor alone)"
	}
	var held, cpu []string
	for _, k := range m.Controls {
		w := k.Writer
		switch {
		case k.ReachedDisk:
			held = append(held, fmt.Sprintf("%s alone dirtied %.1f MB/s, %s's rate %.1f", w.Name, k.MBps, w.Disk, k.DiskThrottleMBps))
		case k.ReachedKernel:
			held = append(held, fmt.Sprintf("%s alone reached the kernel's limit (dirty+writeback %.0f MB, freerun %.0f; bdi %.0f of %.0f MB)",
				w.Name, k.DirtyWritebackMB, k.FreerunMB, k.BdiDirtyMB, k.BdiThreshMB))
		case k.CPURecorded && k.CPUShare < HeldCPUShare:
			held = append(held, fmt.Sprintf("%s alone dirtied %.1f MB/s with its dd at %.0f%% of a vCPU: the kernel held it (bdi %.0f of %.0f MB)",
				w.Name, k.MBps, 100*k.CPUShare, k.BdiDirtyMB, k.BdiThreshMB))
		default:
			s := fmt.Sprintf("%s alone dirtied %.1f MB/s, below %.0f%% of %s's %.1f MB/s, and dirty+writeback %.0f MB stayed below the kernel's limit (freerun %.0f MB)",
				w.Name, k.MBps, 100*HeldRateFraction, w.Disk, k.DiskThrottleMBps, k.DirtyWritebackMB, k.FreerunMB)
			if k.CPURecorded {
				s += fmt.Sprintf(", its dd at %.0f%% of a vCPU", 100*k.CPUShare)
			}
			cpu = append(cpu, s)
		}
	}
	if e := m.EditorAlone; e != nil {
		if e.MeanS > EditorAloneMaxS {
			cpu = append(cpu, fmt.Sprintf("the editor alone took %.3f s a save (mean of %d, max %.3f), above %.2f s", e.MeanS, e.Saves, e.MaxS, EditorAloneMaxS))
		} else {
			held = append(held, fmt.Sprintf("the editor alone took %.3f s a save", e.MeanS))
		}
	}
	if len(cpu) > 0 {
		return false, "not held: guest CPU: " + strings.Join(cpu, "; ")
	}
	return true, "held: " + strings.Join(held, "; ")
}

// MixSeriesNames are the columns a harness 2 run's series adds to SeriesNames, for
// each disk D (vda, vdb) and each writer W (w1, ...): D_bdi_dirty_MB
// (BdiReclaimable), D_bdi_writeback_MB, D_bdi_thresh_MB (BdiDirtyThresh),
// D_bdi_written_MB (BdiWritten since the first sample), D_wMBps and D_util_pct (its
// /sys/block stat since the previous sample), W_MB (the writer's bytes so far), and
// editor_latency_s: the latency of the editor's save that started in the interval
// up to the sample (0: none started).
func (l *Log) MixSeriesNames() []string {
	var n []string
	for _, d := range l.Disks {
		for _, c := range []string{"bdi_dirty_MB", "bdi_writeback_MB", "bdi_thresh_MB", "bdi_written_MB", "wMBps", "util_pct"} {
			n = append(n, d.Name+"_"+c)
		}
	}
	for _, w := range l.Writers {
		n = append(n, w.Name+"_MB")
	}
	return append(n, "editor_latency_s")
}

// MixSeries is Series with MixSeriesNames' columns after SeriesNames'.
func (l *Log) MixSeries() *engine.Series {
	s := l.Series()
	extra := l.MixSeriesNames()
	s.Names = append(append([]string{}, s.Names...), extra...)
	s.Data = append(s.Data, make([][]float64, len(extra))...)
	first := l.Samples[0]
	ed := 0
	var saves []Event
	for _, e := range l.Events {
		if e.Kind == "fsync" {
			saves = append(saves, e)
		}
	}
	for i, sm := range l.Samples {
		var row []float64
		for _, d := range l.Disks {
			b := sm.BDI[d.Name]
			var wMBps, util float64
			if i > 0 {
				p := l.Samples[i-1]
				if dt := sm.T - p.T; dt > 0 {
					x, y := p.Blk[d.Name], sm.Blk[d.Name]
					wMBps = float64(y["wsect"]-x["wsect"]) * sectorSize / (1 << 20) / dt
					util = math.Min(100, float64(y["ioticks"]-x["ioticks"])/(10*dt))
				}
			}
			row = append(row, float64(b["BdiReclaimable"])/kBPerMB, float64(b["BdiWriteback"])/kBPerMB, float64(b["BdiDirtyThresh"])/kBPerMB,
				float64(b["BdiWritten"]-first.BDI[d.Name]["BdiWritten"])/kBPerMB, round3(wMBps), round3(util))
		}
		for _, w := range l.Writers {
			row = append(row, round3(float64(sm.DD[w.Name])/(1<<20)))
		}
		lat := 0.0
		for ed < len(saves) && saves[ed].T <= sm.T {
			lat, _ = floatField(saves[ed].Fields, "latency_s")
			ed++
		}
		row = append(row, lat)
		for j, v := range row {
			s.Data[len(SeriesNames)+j] = append(s.Data[len(SeriesNames)+j], v)
		}
	}
	return s
}
