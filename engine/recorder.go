package engine

import (
	"sort"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/fs"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/workload"
)

// recorder watches a Machine: at every series period it samples the time series
// (Columns, with several disks DiskSeries per disk, with Config.Detail the
// Detail), and at the end it assembles the Result. The Machine builds and steps;
// the recorder only reads it (and ends the run once the workload is over).
type recorder struct {
	m   *Machine
	opt RunOptions

	sampleEvery sim.Time
	sampler     sim.Timer
	samples     [][]float64
	x           sampleState // the per-sample values the columns read

	// the first disk's iostat, the flusher's and the dirtiers' counters at the
	// last sample (the series' per-period rates)
	prevStats  devices.Iostat
	prevFl     kernel.FlusherStats
	prevPaused sim.Time
	prevPauses int64
	prevT      sim.Time

	maxDirty []int64 // per bdi: most dirty + writeback pages at a sample
	// per-disk series (several disks): DiskSeries per bdi, and each queue's
	// iostat counters at the last sample
	diskSamples [][]float64
	diskPrev    []devices.Iostat
	diskPrevT   []sim.Time

	det *detailRec // with Config.Detail
}

func newRecorder(m *Machine) *recorder {
	r := &recorder{m: m}
	if m.cfg.Detail {
		r.det = &detailRec{}
	}
	return r
}

// start schedules the first sample at time 0, then one every period (0: one that
// keeps about 600 rows, at least 10 ms).
func (r *recorder) start(period sim.Time) {
	r.sampleEvery = period
	if r.sampleEvery == 0 {
		r.sampleEvery = max(r.m.runEnd/600/sim.Millisecond*sim.Millisecond, 10*sim.Millisecond)
	}
	r.samples = make([][]float64, len(Columns))
	r.sampler.Fn = r.sample
	r.m.w.At(&r.sampler, 0)
}

const pagesPerMB = 256.0

func mb(pages int64) float64 { return float64(pages) / pagesPerMB }

// sample records one series row (and the Detail's), then ends the run when the
// workload is over, else schedules the next.
func (r *recorder) sample() {
	m := r.m
	if m.ctx.Err() != nil {
		m.w.CancelRun()
		return
	}
	k := m.k
	q := m.disks[0].Queue // the series' iostat and wbt columns are the first disk's
	now := m.w.Now()
	x := &r.x
	x.now, x.k = now, k
	x.bg, x.thresh, x.limit, x.setpoint = k.DirtyLimits()
	st := q.Stats()
	x.io = devices.Rates(r.prevStats, st, now-r.prevT)
	r.prevStats, r.prevT = st, now
	x.wbt = q.WBT()
	fl := k.Flusher().Stats
	x.wrote, x.chunk = 0, 0
	if n := fl.InodeCalls - r.prevFl.InodeCalls; n > 0 {
		x.wrote = mb((fl.WrotePages - r.prevFl.WrotePages) / n)
	}
	if n := fl.ChunkCalls - r.prevFl.ChunkCalls; n > 0 {
		x.chunk = mb((fl.ChunkPages - r.prevFl.ChunkPages) / n)
	}
	r.prevFl = fl
	var paused sim.Time
	var pauses int64
	for _, th := range k.Threads() {
		paused += th.Stats.Paused
		pauses += th.Stats.Pauses
	}
	x.pauseMs = 0
	if n := pauses - r.prevPauses; n > 0 {
		x.pauseMs = float64(paused-r.prevPaused) / float64(n) / 1e6
	}
	r.prevPaused, r.prevPauses = paused, pauses
	x.dirtyList, x.ioList, x.moreIOList = k.BDI.ListLens()
	row := make([]float64, len(Columns))
	for i := range Columns {
		row[i] = Columns[i].sample(x)
		r.samples[i] = append(r.samples[i], row[i])
	}
	if r.det != nil {
		r.det.sample(k, m.ddThreads(), now)
	}
	r.sampleDisks()
	if r.opt.Sample != nil {
		r.opt.Sample(row)
	}
	if r.opt.Progress != nil {
		r.opt.Progress(now, m.runEnd)
	}
	if m.finished() {
		m.idle = true
		m.w.CancelRun()
		return
	}
	if next := now + r.sampleEvery; next <= m.runEnd {
		m.w.At(&r.sampler, next)
	}
}

// sampleDisks records each bdi's dirty + writeback high-water mark and, with
// several disks, the per-disk series (DiskSeries).
func (r *recorder) sampleDisks() {
	m := r.m
	bdis := m.k.BDIs()
	if len(r.maxDirty) < len(bdis) {
		r.maxDirty = make([]int64, len(bdis))
	}
	for i, b := range bdis {
		r.maxDirty[i] = max(r.maxDirty[i], b.Stats.Reclaimable+b.Stats.Writeback)
	}
	if len(bdis) < 2 {
		return
	}
	if r.diskSamples == nil {
		r.diskSamples = make([][]float64, len(bdis)*len(DiskSeries))
		r.diskPrev = make([]devices.Iostat, len(bdis))
		r.diskPrevT = make([]sim.Time, len(bdis))
	}
	now := m.w.Now()
	_, thresh, _, setpoint := m.k.DirtyLimits()
	for i, b := range bdis {
		st := b.Q.Stats()
		x := diskSample{b: b, thresh: m.k.BdiThresh(b), io: devices.Rates(r.diskPrev[i], st, now-r.diskPrevT[i])}
		r.diskPrev[i], r.diskPrevT[i] = st, now
		// bdi_position_ratio (v3.2): bdi_setpoint = setpoint * (bdi_thresh << 16 / (thresh + 1)) >> 16
		x.setpoint = setpoint * (min(x.thresh, thresh) << 16 / (thresh + 1)) >> 16
		for j, c := range DiskSeries {
			k := i*len(DiskSeries) + j
			r.diskSamples[k] = append(r.diskSamples[k], c.sample(&x))
		}
	}
}

// result assembles what the machine measured so far. Machine-wide: the run, CPU,
// written and dirtied (every disk's sum), the flusher's work, dirty ages, tasks
// and inodes. The first disk's: Iostat, Media, WBT and FSStats, and the series'
// iostat and wbt columns. Per disk (several disks or editors): Disks, each
// disk's iostat included.
func (r *recorder) result() *Result {
	m := r.m
	k, cfg := m.k, m.cfg
	first := cfg.Disks[0]
	q := m.disks[0].Queue
	runtime := m.w.Now().Seconds()
	res := &Result{
		Case: cfg.Case, Kernel: cfg.Kernel, Device: first.Device.Name, Filesystem: first.Filesystem,
		Seed: cfg.Seed, RuntimeS: runtime, Events: m.w.Events(), BusyLoops: k.BusyLoops(),
		WrittenMB: mb(k.G.NrWritten), DirtiedMB: mb(k.G.NrDirtied),
		SwitchActivity: k.SwitchActivity(),
	}
	if bw, _, ok := k.HarnessWriteBW(); ok {
		res.WriteBWMBps, res.WriteBWMethod = bw/pagesPerMB, "harness"
	} else if runtime > 0 {
		res.WriteBWMBps, res.WriteBWMethod = mb(k.G.NrWritten)/runtime, "average"
	}
	for j, d := range m.dds {
		th := d.Thread()
		tr := TaskResult{Disk: m.ddDisk[j], Comm: th.Task.Comm, PID: th.Task.PID, DirtiedMB: float64(d.Written()) / (1 << 20),
			Pauses: th.Stats.Pauses, PausedS: th.Stats.Paused.Seconds(), MaxPauseMs: float64(th.Stats.MaxPause) / 1e6,
			CPUS: th.Task.CPUTime().Seconds(), Done: d.Done, Exit: d.ExitCause()}
		end := m.w.Now()
		if d.Done {
			end = d.Ended
			tr.RuntimeS = (d.Ended - d.Started).Seconds()
		}
		if el := (end - d.Started).Seconds(); el > 0 {
			tr.RateMBps = tr.DirtiedMB / el
		}
		res.Tasks = append(res.Tasks, tr)
	}
	m.fullResults(res)
	fl := k.Flusher()
	flCPU := fl.Thread().Task.CPUTime()
	// every thread's CPU, grouped by comm in order of creation (dd, flush-8:0,
	// pdflush, kjournald, btrfs workers, readers ...), then IO completion
	total := k.IrqCPU()
	idx := map[string]int{}
	for _, th := range k.Threads() {
		c := th.Task.CPUTime()
		total += c
		i, ok := idx[th.Task.Comm]
		if !ok {
			i = len(res.CPUByActor)
			idx[th.Task.Comm] = i
			res.CPUByActor = append(res.CPUByActor, ActorCPU{Actor: th.Task.Comm})
		}
		res.CPUByActor[i].CPUS += c.Seconds()
	}
	res.CPUByActor = append(res.CPUByActor, ActorCPU{Actor: "irq", CPUS: k.IrqCPU().Seconds()})
	res.CPUS = total.Seconds()
	if name, ok := kernel.PresetFor(k.P.Variants); ok {
		res.KernelSwitchesEqual = name
	}
	works := map[string]int64{}
	for reason, n := range fl.Stats.Works {
		if n > 0 {
			works[kernel.Reason(reason).String()] = n
		}
	}
	res.Flusher = FlusherResult{Works: works, InodeCalls: fl.Stats.InodeCalls, Wakeups: fl.Stats.Wakeups, CPUS: flCPU.Seconds()}
	// dirty age
	var sumAge sim.Time
	var calls int64
	for _, in := range k.Inodes() {
		st := in.Stats()
		sumAge += st.SumAge
		calls += st.WritebackCalls
		res.DirtyAge.MaxS = max(res.DirtyAge.MaxS, st.MaxAge.Seconds())
		res.DirtyAge.MaxMetaS = max(res.DirtyAge.MaxMetaS, st.MaxMetaAge.Seconds())
		ir := InodeResult{Ino: in.Ino, DirtiedMB: mb(in.Dirtied()), WrittenMB: mb(in.Written()), Calls: st.WritebackCalls,
			MaxAgeS: st.MaxAge.Seconds(), MaxMetaAgeS: st.MaxMetaAge.Seconds()}
		if st.WritebackCalls > 0 {
			ir.MeanAgeS = (st.SumAge / sim.Time(st.WritebackCalls)).Seconds()
		}
		res.Inodes = append(res.Inodes, ir)
	}
	if calls > 0 {
		res.DirtyAge.MeanS = (sumAge / sim.Time(calls)).Seconds()
	}
	sort.Slice(res.Inodes, func(i, j int) bool { return res.Inodes[i].Ino < res.Inodes[j].Ino })
	r.diskResults(res)
	res.Iostat = r.iostat(0)
	if md, ok := q.Media(); ok && m.w.Now() > 0 {
		sec, pct := m.w.Now().Seconds(), 100/float64(m.w.Now())
		res.Media = &MediaSummary{OpsS: float64(md.Ops) / sec, SeeksS: float64(md.Seeks) / sec,
			SeekPct: float64(md.SeekTime) * pct, RotatePct: float64(md.RotateTime) * pct, XferPct: float64(md.XferTime) * pct}
	}
	if sr, ok := m.disks[0].FS.(fs.StatsReporter); ok {
		for _, st := range sr.Stats() {
			res.FSStats = append(res.FSStats, report.Stat(st))
		}
	}
	wbt := q.WBT()
	res.WBT = WBTSummary{Enabled: wbt.Enabled, FinalStep: wbt.Step, Scales: wbt.Scales, Exceeded: wbt.Exceeded}
	for _, rd := range m.rds {
		st := rd.Stats()
		res.Reads.Count += st.Reads
		res.Reads.MaxMs = max(res.Reads.MaxMs, float64(st.Max)/1e6)
		res.Reads.P99Ms = max(res.Reads.P99Ms, float64(st.P99)/1e6)
		res.Reads.MeanMs += float64(st.Mean) / 1e6 / float64(len(m.rds))
	}
	res.Series = &Series{IntervalS: r.sampleEvery.Seconds(), Names: SeriesNames(), Data: r.samples}
	if len(r.diskSamples) > 0 {
		res.Series.Names = append(res.Series.Names, diskSeriesNames(len(k.BDIs()))...)
		res.Series.Data = append(res.Series.Data, r.diskSamples...)
	}
	if r.det != nil {
		res.Detail = r.det.result(m.ddThreads(), k)
		res.DirtyAge.MaxDataS = r.det.maxData.Seconds()
	}
	if m.tr != nil {
		res.Trace = m.tr.Lines()
		res.TraceDropped = m.tr.Dropped()
	}
	return res
}

// iostat is disk i's iostat -x over the run.
func (r *recorder) iostat(i int) IostatSummary {
	io := devices.Rates(devices.Iostat{}, r.m.disks[i].Queue.Stats(), r.m.w.Now())
	return IostatSummary{
		ReadIOPS: io.RPS, WriteIOPS: io.WPS, ReadMBps: io.RMBps, WriteMBps: io.WMBps, AvgRqSz: io.AvgRqSz,
		AvgQuSz: io.AvgQuSz, AwaitMs: io.Await, ReadAwaitMs: io.RAwait, WriteAwaitMs: io.WAwait, UtilPct: io.Util,
		WriteMergesS: io.WMergeS,
	}
}

func latencyResult(s workload.LatencyStats) LatencyResult {
	ms := func(t sim.Time) float64 { return float64(t) / 1e6 }
	return LatencyResult{N: s.N, P50Ms: ms(s.P50), P99Ms: ms(s.P99), MaxMs: ms(s.Max)}
}

// editorResult is an editor's save latency, where the time went and the
// latency over time.
func editorResult(e *workload.Editor) LatencyResult {
	ms := func(t sim.Time) float64 { return float64(t) / 1e6 }
	s := e.Saves()
	lr := latencyResult(s)
	lr.InFlightMs = ms(e.InFlight())
	lr.P90Ms = ms(s.P90)
	ws := e.Waits()
	var total sim.Time
	for _, w := range ws {
		total += w.Total
	}
	for _, w := range ws {
		lr.TimeIn = append(lr.TimeIn, report.WaitShare{Cause: w.Cause.String(), TotalMs: ms(w.Total),
			SharePct: 100 * float64(w.Total) / float64(total), P50Ms: ms(w.P50), P99Ms: ms(w.P99)})
	}
	pts, every := e.Series()
	for _, p := range pts {
		lr.Series = append(lr.Series, report.SavePoint{TimeS: p.At.Seconds(), LatencyMs: ms(p.Latency), Wait: p.Dominant.String()})
	}
	if every > 1 {
		lr.SeriesEvery = every
	}
	return lr
}

// diskResults fills Result.Disks (only for several disks or editors: a one-disk
// Result stays as it was).
func (r *recorder) diskResults(res *Result) {
	m := r.m
	if m.cfg.NumDisks() == 1 && len(m.eds) == 0 {
		return
	}
	runtime := m.w.Now().Seconds()
	for i, b := range m.k.BDIs() {
		d := m.cfg.Disks[i]
		dr := DiskResult{BDI: b.Name, Device: d.Device.Name, Filesystem: d.Filesystem,
			WrittenMB: mb(b.Stats.Written), DirtiedMB: mb(b.Stats.Dirtied), BdiThreshMB: mb(m.k.BdiThresh(b))}
		if runtime > 0 {
			dr.WriteMBps = dr.WrittenMB / runtime
		}
		if i < len(r.maxDirty) {
			dr.MaxDirtyMB = mb(r.maxDirty[i])
		}
		dr.FullAtS, _ = m.fullAt(i)
		for j, dd := range m.dds {
			if m.ddDisk[j] == i && dd.Done {
				dr.DDExitS = max(dr.DDExitS, dd.Ended.Seconds())
			}
		}
		for j, e := range m.eds {
			if m.edDisk[j] == i {
				dr.Editors = append(dr.Editors, editorResult(e))
			}
		}
		for j, rd := range m.rds {
			if m.rdDisk[j] == i {
				dr.Readers = append(dr.Readers, latencyResult(rd.Latency()))
			}
		}
		io := r.iostat(i)
		dr.Iostat = &io
		res.Disks = append(res.Disks, dr)
	}
}
