package validate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine"
)

// Units: vmstat counts 4 KiB pages, the bdi debugfs stats are kB (KiB); wblab's MB is
// 2^20 bytes, so MB = pages/256 = kB/1024.
const (
	pagesPerMB = 256.0
	kBPerMB    = 1024.0
	sectorSize = 512.0
)

// Case is what a log says was run, as the guest read it back.
type Case struct {
	Name       string
	FS         string
	Work       string // "dd": N writers; "stick": copier on vdb + editor on vda
	DD         int
	BS         int64
	RunS       float64 // how long the writers ran (dd cases)
	CopyMB     int64   // stick: MiB the copier writes
	CPUs       int
	MemTotalKB int64

	DirtyBytes, DirtyBackgroundBytes int64
	DirtyRatio, DirtyBackgroundRatio int
	DirtyExpireCs, DirtyWritebackCs  int

	Disks  []Disk
	Kernel string // uname -r in the guest
	QEMU   string
	Accel  string
	SMP    int
	Host   string // host CPU model, cores, kernel
	// harness 2: the Debian kernel package and the host's load average (1, 5, 15 min)
	// at the boot's start and end
	Package            string
	LoadStart, LoadEnd string
}

// CaseOf reads the case from a log's header lines.
func CaseOf(l *Log) (Case, error) {
	h := l.Header
	c := Case{Name: l.Name, FS: h["fs"], Work: h["work"], Disks: l.Disks, Kernel: h["kernel"],
		QEMU: h["qemu"], Accel: h["accel"], Package: strings.TrimSpace(h["debian_kernel_package"] + " " + h["debian_kernel_version"]),
		LoadStart: h["host_load_start"], LoadEnd: h["host_load_end"],
		Host: fmt.Sprintf("%s, %s cores, Linux %s", strings.ReplaceAll(h["host_cpu"], "_", " "), h["host_cpus"], h["host_kernel"])}
	ints := []struct {
		k string
		p *int64
	}{{"dirty_bytes", &c.DirtyBytes}, {"dirty_background_bytes", &c.DirtyBackgroundBytes}, {"mem_total_kB", &c.MemTotalKB}, {"copy_MB", &c.CopyMB}}
	for _, f := range ints {
		v, err := intField(h, f.k)
		if err != nil {
			return Case{}, fmt.Errorf("%s: header: %w", l.Name, err)
		}
		*f.p = v
	}
	small := []struct {
		k string
		p *int
	}{{"dd", &c.DD}, {"cpus", &c.CPUs}, {"smp", &c.SMP}, {"dirty_ratio", &c.DirtyRatio}, {"dirty_background_ratio", &c.DirtyBackgroundRatio},
		{"dirty_expire_centisecs", &c.DirtyExpireCs}, {"dirty_writeback_centisecs", &c.DirtyWritebackCs}}
	for _, f := range small {
		v, err := intField(h, f.k)
		if err != nil {
			return Case{}, fmt.Errorf("%s: header: %w", l.Name, err)
		}
		*f.p = int(v)
	}
	var err error
	if c.RunS, err = floatField(h, "run_s"); err != nil {
		return Case{}, fmt.Errorf("%s: header: %w", l.Name, err)
	}
	if c.BS, err = parseSize(h["bs"]); err != nil {
		return Case{}, fmt.Errorf("%s: header bs: %w", l.Name, err)
	}
	return c, nil
}

// parseSize reads dd's bs: a number with an optional k, M or G (binary) suffix.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1<<10, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size like 4k or 1M", s)
	}
	return n * mult, nil
}

// SeriesNames are the measured series' columns: a subset of wblab's own series
// columns (engine's Series names), with the same units.
var SeriesNames = []string{"time_s", "dirty_MB", "writeback_MB", "bg_thresh_MB", "thresh_MB",
	"write_bw_MBps", "iostat_w_s", "iostat_wMBps", "iostat_util_pct", "dirtied_MB", "written_MB"}

// Series converts the samples into wblab's series columns, time_s counted from the
// writers' start: dirty_MB, writeback_MB and the thresholds from /proc/vmstat
// (global); write_bw_MBps is the first disk's bdi write bandwidth estimate
// (BdiWriteBandwidth); iostat_* are the first disk's /sys/block stat rates since the
// previous sample (iostat_util_pct from io_ticks, 0 where the log has none);
// dirtied_MB and written_MB count from the first sample.
func (l *Log) Series() *engine.Series {
	s := &engine.Series{Names: SeriesNames, Data: make([][]float64, len(SeriesNames))}
	if n := len(l.Samples); n > 1 {
		s.IntervalS = (l.Samples[n-1].T - l.Samples[0].T) / float64(n-1)
	}
	disk := l.Disks[0].Name
	first := l.Samples[0]
	for i, sm := range l.Samples {
		var wps, wMBps, util float64
		if i > 0 {
			p := l.Samples[i-1]
			if dt := sm.T - p.T; dt > 0 {
				a, b := p.Blk[disk], sm.Blk[disk]
				wps = float64(b["w"]-a["w"]) / dt
				wMBps = float64(b["wsect"]-a["wsect"]) * sectorSize / (1 << 20) / dt
				if _, ok := b["ioticks"]; ok {
					util = math.Min(100, float64(b["ioticks"]-a["ioticks"])/(10*dt))
				}
			}
		}
		row := []float64{
			round3(sm.T - l.StartT),
			float64(sm.VM["nr_dirty"]) / pagesPerMB,
			float64(sm.VM["nr_writeback"]) / pagesPerMB,
			float64(sm.VM["nr_dirty_background_threshold"]) / pagesPerMB,
			float64(sm.VM["nr_dirty_threshold"]) / pagesPerMB,
			float64(sm.BDI[disk]["BdiWriteBandwidth"]) / kBPerMB,
			round3(wps), round3(wMBps), round3(util),
			float64(sm.VM["nr_dirtied"]-first.VM["nr_dirtied"]) / pagesPerMB,
			float64(sm.VM["nr_written"]-first.VM["nr_written"]) / pagesPerMB,
		}
		for j, v := range row {
			s.Data[j] = append(s.Data[j], v)
		}
	}
	return s
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// Window is the comparison window in seconds since the writers started.
type Window struct {
	FromS, ToS float64
}

func (w Window) String() string { return fmt.Sprintf("%g-%g s", w.FromS, w.ToS) }

// SteadyWindow is the window the figures are averaged over: from a third of the
// writers' run to its end (10-30 s of a 30 s run), leaving out the ramp to the limits.
func SteadyWindow(runS float64) Window { return Window{FromS: math.Round(runS / 3), ToS: runS} }

// Figures are one run's figures over a window, in MB (2^20 bytes) and MB/s.
type Figures struct {
	WriteBWMBps      float64 // written (nr_written, wblab written_MB) per second
	DirtiedMBps      float64 // dirtied per second (the writers' rate)
	DirtyMB          float64 // mean dirty
	DirtyWritebackMB float64 // mean dirty + writeback
	ThreshMB         float64 // mean dirty threshold (global)
	BgThreshMB       float64 // mean background threshold (global)
	BdiThreshMB      float64 // mean threshold of the disk's bdi (wb_thresh)
	BdiWriteBWMBps   float64 // mean of the kernel's write bandwidth estimate
	DiskMBps         float64 // the disk's mean write rate (iostat wMB/s)
	Rows             int     // samples in the window
}

// FiguresOf averages a series (measured or wblab's) over the window. Rates are the
// difference between the window's first and last rows over their time apart; means
// are over the rows. bdiThresh is the bdi threshold series (nil: use thresh_MB,
// which is wblab's bdi_dirty_limit with one bdi).
func FiguresOf(s *engine.Series, w Window, bdiThresh []float64) (Figures, error) {
	t, ok := s.Column("time_s")
	if !ok {
		return Figures{}, fmt.Errorf("series has no time_s")
	}
	col := func(n string) ([]float64, error) {
		c, ok := s.Column(n)
		if !ok {
			return nil, fmt.Errorf("series has no %s", n)
		}
		return c, nil
	}
	var idx []int
	for i, v := range t {
		if v >= w.FromS-1e-9 && v <= w.ToS+1e-9 {
			idx = append(idx, i)
		}
	}
	if len(idx) < 2 {
		return Figures{}, fmt.Errorf("window %s holds %d samples, want at least 2", w, len(idx))
	}
	names := []string{"dirty_MB", "writeback_MB", "thresh_MB", "bg_thresh_MB", "write_bw_MBps", "iostat_wMBps", "dirtied_MB", "written_MB"}
	c := map[string][]float64{}
	for _, n := range names {
		v, err := col(n)
		if err != nil {
			return Figures{}, err
		}
		c[n] = v
	}
	if bdiThresh == nil {
		bdiThresh = c["thresh_MB"]
	}
	mean := func(v []float64, add []float64) float64 {
		sum := 0.0
		for _, i := range idx {
			sum += v[i]
			if add != nil {
				sum += add[i]
			}
		}
		return sum / float64(len(idx))
	}
	a, b := idx[0], idx[len(idx)-1]
	dt := t[b] - t[a]
	return Figures{
		WriteBWMBps:      (c["written_MB"][b] - c["written_MB"][a]) / dt,
		DirtiedMBps:      (c["dirtied_MB"][b] - c["dirtied_MB"][a]) / dt,
		DirtyMB:          mean(c["dirty_MB"], nil),
		DirtyWritebackMB: mean(c["dirty_MB"], c["writeback_MB"]),
		ThreshMB:         mean(c["thresh_MB"], nil),
		BgThreshMB:       mean(c["bg_thresh_MB"], nil),
		BdiThreshMB:      mean(bdiThresh, nil),
		BdiWriteBWMBps:   mean(c["write_bw_MBps"], nil),
		DiskMBps:         mean(c["iostat_wMBps"], nil),
		Rows:             len(idx),
	}, nil
}

// BdiThresh is the first disk's BdiDirtyThresh per sample, in MB.
func (l *Log) BdiThresh() []float64 {
	disk := l.Disks[0].Name
	v := make([]float64, len(l.Samples))
	for i, sm := range l.Samples {
		v[i] = float64(sm.BDI[disk]["BdiDirtyThresh"]) / kBPerMB
	}
	return v
}

// DiskRate is the write rate the first disk got over the window while it was busy:
// its write sectors over its io_ticks (the time it had requests in flight), in
// bytes/s. This is the device rate wblab is given, not the throttle's nominal value;
// where the writers left the disk idle (a CPU-bound guest) it is still the rate of
// the busy time. util is the busy fraction of the window (1 without io_ticks).
func (l *Log) DiskRate(w Window) (rate, util float64, err error) {
	return l.DiskRateOf(l.Disks[0].Name, w)
}

// DiskRateOf is DiskRate for the named disk (vda, vdb).
func (l *Log) DiskRateOf(disk string, w Window) (rate, util float64, err error) {
	var a, b *Sample
	for i := range l.Samples {
		sm := &l.Samples[i]
		if t := sm.T - l.StartT; t >= w.FromS-1e-9 && t <= w.ToS+1e-9 {
			if a == nil {
				a = sm
			}
			b = sm
		}
	}
	if a == nil || a == b {
		return 0, 0, fmt.Errorf("%s: window %s holds fewer than 2 samples", l.Name, w)
	}
	bytes := float64(b.Blk[disk]["wsect"]-a.Blk[disk]["wsect"]) * sectorSize
	busy, util := b.T-a.T, 1.0
	if _, ok := b.Blk[disk]["ioticks"]; ok {
		ticks := float64(b.Blk[disk]["ioticks"]-a.Blk[disk]["ioticks"]) / 1000
		if ticks <= 0 {
			return 0, 0, fmt.Errorf("%s: disk %s was idle in the window %s", l.Name, disk, w)
		}
		util = math.Min(1, ticks/busy)
		busy = math.Min(busy, ticks)
	}
	return bytes / busy, util, nil
}

// Stick is what the two-disk case measured: the editor's fsync latencies on the fast
// disk while the copier writes to the slow one, the copier's exit and the final sync.
type Stick struct {
	FsyncCount            int
	FsyncMeanS, FsyncMaxS float64
	CopierExitS           float64 // since the start
	SyncS                 float64 // the final sync's duration
	StickNominalB         float64 // the slow disk's throttle, bytes/s
}

// StickOf reads the stick figures from a log's events.
func StickOf(l *Log) (Stick, error) {
	var s Stick
	exit, sync := false, false
	for _, e := range l.Events {
		switch e.Kind {
		case "fsync":
			v, err := floatField(e.Fields, "latency_s")
			if err != nil {
				return Stick{}, fmt.Errorf("%s: fsync: %w", l.Name, err)
			}
			s.FsyncCount++
			s.FsyncMeanS += v
			s.FsyncMaxS = math.Max(s.FsyncMaxS, v)
		case "copier_exit":
			s.CopierExitS, exit = e.T-l.StartT, true
		case "sync":
			v, err := floatField(e.Fields, "sync_s")
			if err != nil {
				return Stick{}, fmt.Errorf("%s: sync: %w", l.Name, err)
			}
			s.SyncS, sync = v, true
		}
	}
	if !exit || !sync || s.FsyncCount == 0 {
		return Stick{}, fmt.Errorf("%s: a stick case needs copier_exit, sync and fsync events", l.Name)
	}
	s.FsyncMeanS /= float64(s.FsyncCount)
	if len(l.Disks) > 1 {
		s.StickNominalB = float64(l.Disks[1].ThrottleBps)
	}
	return s, nil
}
