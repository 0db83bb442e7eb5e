// Package report is what a run reports (Result, its time series and per-inode and
// per-task detail) and the Doc type explaining its numbers: plain data with no model
// code, so the page's UI module reads results without linking the simulator.
// Package engine re-exports every type here under its own name.
package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Result is what a run measured. Units are in the JSON names; MB = 2^20 bytes as the
// harness's pages/256.
type Result struct {
	Case   string `json:"case"`
	Kernel string `json:"kernel"`
	// KernelSwitchesEqual names the preset whose switches equal the run's (after
	// variant overrides), or is empty when no real kernel had that combination.
	KernelSwitchesEqual string `json:"kernel_switches_equal"`
	Device              string `json:"device"`
	Filesystem          string `json:"fs"`
	Seed                uint64 `json:"seed"`

	RuntimeS float64 `json:"runtime_s"`
	// WriteBWMBps is write_bw as Wu's compare script computes it from the flusher's
	// global_dirty_state lines (WriteBWMethod "harness"); for runs with fewer than
	// ten such lines it is written/runtime ("average").
	WriteBWMBps   float64    `json:"write_bw_MBps"`
	WriteBWMethod string     `json:"write_bw_method"`
	WrittenMB     float64    `json:"written_MB"`
	DirtiedMB     float64    `json:"dirtied_MB"`
	CPUS          float64    `json:"cpu_s"`
	CPUByActor    []ActorCPU `json:"cpu_by_actor"`
	Events        uint64     `json:"events"`
	BusyLoops     int64      `json:"wb_busy_loops"`
	// SwitchActivity counts, per path a kernel switch decides, how often it ran
	// (kernel.ActivityPaths names them; every path is listed, zeros included).
	SwitchActivity map[string]int64 `json:"switch_activity"`

	// Machine-wide: written_MB, dirtied_MB and write_bw (every disk's sum), CPU,
	// dirty ages, tasks, the flusher's work, reads (every reader's). The first
	// disk's: Iostat, Media, WBT, FSStats (and the series' iostat and wbt
	// columns); Disks has each disk's, iostat included.
	DirtyAge DirtyAge      `json:"dirty_age"`
	Tasks    []TaskResult  `json:"tasks"`
	Flusher  FlusherResult `json:"flusher"`
	Iostat   IostatSummary `json:"iostat"`
	Media    *MediaSummary `json:"media,omitempty"` // what a rotating disk's head did (hdd model)
	WBT      WBTSummary    `json:"wbt"`
	Reads    ReadSummary   `json:"reads"`
	Inodes   []InodeResult `json:"inodes,omitempty"`
	// Disks are per-disk figures of a multi-disk machine or one with editors.
	Disks []DiskResult `json:"disks,omitempty"`
	// Full lists the disks whose filesystem filled (a write() failed with ENOSPC).
	Full []DiskFull `json:"full,omitempty"`
	// FSStats are the filesystem's counters (journal commits, XFS ioend requeues…).
	FSStats      []Stat   `json:"fs_stats,omitempty"`
	Series       *Series  `json:"series,omitempty"`
	Detail       *Detail  `json:"detail,omitempty"` // with Config.Detail
	Trace        []string `json:"-"`
	TraceDropped int      `json:"trace_dropped,omitempty"`
}

// ActorCPU is CPU time by actor (dd tasks summed, the flusher, IO completion).
type ActorCPU struct {
	Actor string  `json:"actor"`
	CPUS  float64 `json:"cpu_s"`
}

// DirtyAge summarises how long inodes stayed dirty (starvation).
type DirtyAge struct {
	MaxS     float64 `json:"max_s"`      // largest now - dirtied_when at writeback_single_inode
	MeanS    float64 `json:"mean_s"`     // mean over flusher writeback_single_inode calls
	MaxMetaS float64 `json:"max_meta_s"` // largest time inode metadata stayed dirty before written
	// MaxDataS is the oldest dirty data: the largest age of an inode's oldest dirty
	// page (Inode.OldestDirtyDataAge), over the series rows; with Config.Detail.
	// MaxS, from dirtied_when, keeps growing for an inode that never becomes clean.
	MaxDataS float64 `json:"max_data_s,omitempty"`
}

// TaskResult is one writer task.
type TaskResult struct {
	Disk       int     `json:"disk,omitempty"` // index of the disk it writes (0 = the first)
	Comm       string  `json:"comm"`
	PID        int     `json:"pid"`
	DirtiedMB  float64 `json:"dirtied_MB"`
	RateMBps   float64 `json:"rate_MBps"`
	Pauses     int64   `json:"pauses"`
	PausedS    float64 `json:"paused_s"`
	MaxPauseMs float64 `json:"max_pause_ms"`
	CPUS       float64 `json:"cpu_s"`
	Done       bool    `json:"done"`
	RuntimeS   float64 `json:"runtime_s,omitempty"` // start to exit, for count-limited dd
	// Exit is why the task exited before its count: "enospc" (a write() failed
	// with ENOSPC: the disk's filesystem was full).
	Exit string `json:"exit,omitempty"`
}

// FlusherResult summarises the flusher's work.
type FlusherResult struct {
	Works      map[string]int64 `json:"works"`
	InodeCalls int64            `json:"inode_calls"`
	Wakeups    int64            `json:"wakeups"`
	CPUS       float64          `json:"cpu_s"`
}

// IostatSummary is iostat -x over the whole run.
type IostatSummary struct {
	ReadIOPS     float64 `json:"r_s"`
	WriteIOPS    float64 `json:"w_s"`
	ReadMBps     float64 `json:"rMB_s"`
	WriteMBps    float64 `json:"wMB_s"`
	WriteMergesS float64 `json:"wrqm_s"`
	AvgRqSz      float64 `json:"avgrq_sz"` // sectors
	AvgQuSz      float64 `json:"avgqu_sz"`
	AwaitMs      float64 `json:"await_ms"`
	ReadAwaitMs  float64 `json:"r_await_ms"`
	WriteAwaitMs float64 `json:"w_await_ms"`
	UtilPct      float64 `json:"util_pct"`
}

// MediaSummary is a rotating disk's own view over the run: media operations,
// seeks (operations that moved the head to another track) and how the head's time
// divides between seeking, waiting for rotation and transferring.
type MediaSummary struct {
	OpsS      float64 `json:"ops_s"`
	SeeksS    float64 `json:"seeks_s"`
	SeekPct   float64 `json:"seek_pct"`   // share of the run's time
	RotatePct float64 `json:"rotate_pct"` // share of the run's time
	XferPct   float64 `json:"xfer_pct"`   // share of the run's time
}

// WBTSummary is blk-wbt's activity over the run.
type WBTSummary struct {
	Enabled   bool  `json:"enabled"`
	FinalStep int   `json:"final_step"`
	Scales    int64 `json:"scales"`
	Exceeded  int64 `json:"exceeded_windows"`
}

// ReadSummary is the readers' latency.
type ReadSummary struct {
	Count  int64   `json:"count"`
	MeanMs float64 `json:"mean_ms"`
	P99Ms  float64 `json:"p99_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// InodeResult is one file's writeback statistics.
type InodeResult struct {
	Ino         uint64  `json:"ino"`
	DirtiedMB   float64 `json:"dirtied_MB"`
	WrittenMB   float64 `json:"written_MB"`
	Calls       int64   `json:"writeback_calls"`
	MaxAgeS     float64 `json:"max_age_s"`
	MeanAgeS    float64 `json:"mean_age_s"`
	MaxMetaAgeS float64 `json:"max_meta_age_s"`
}

// Series is the sampled time series, column-major: Data[i] holds the values of
// Names[i]; Names[0] is "time_s". Units are part of the names.
type Series struct {
	IntervalS float64     `json:"interval_s"`
	Names     []string    `json:"names"`
	Data      [][]float64 `json:"data"`
}

// Column returns the values of a named column.
func (s *Series) Column(name string) ([]float64, bool) {
	if s == nil {
		return nil, false
	}
	for i, n := range s.Names {
		if n == name {
			return s.Data[i], true
		}
	}
	return nil, false
}

// WriteSeriesCSV writes the time series as CSV, first column time_s.
func (r *Result) WriteSeriesCSV(w io.Writer) error {
	if r.Series == nil {
		return fmt.Errorf("result has no time series")
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(r.Series.Names); err != nil {
		return err
	}
	rows := 0
	if len(r.Series.Data) > 0 {
		rows = len(r.Series.Data[0])
	}
	rec := make([]string, len(r.Series.Names))
	for i := 0; i < rows; i++ {
		for j := range rec {
			rec[j] = strconv.FormatFloat(r.Series.Data[j][i], 'f', -1, 64)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteTrace writes the recorded trace lines.
func (r *Result) WriteTrace(w io.Writer) error {
	for _, l := range r.Trace {
		if _, err := io.WriteString(w, l+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// WriteSummary prints a human-readable summary.
func (r *Result) WriteSummary(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "case      %s\n", r.Case)
	fmt.Fprintf(&b, "kernel    %s   device %s   fs %s   seed %d\n", r.Kernel, r.Device, r.Filesystem, r.Seed)
	switch eq := r.KernelSwitchesEqual; {
	case eq == "":
		b.WriteString("          (this switch combination is no named kernel)\n")
	case eq != r.Kernel:
		fmt.Fprintf(&b, "          (switches equal preset %s)\n", eq)
	}
	fmt.Fprintf(&b, "runtime   %.1f s simulated, %d events\n", r.RuntimeS, r.Events)
	fmt.Fprintf(&b, "write_bw  %.2f MB/s (%s)\n", r.WriteBWMBps, r.WriteBWMethod)
	fmt.Fprintf(&b, "written   %.1f MB   dirtied %.1f MB\n", r.WrittenMB, r.DirtiedMB)
	fmt.Fprintf(&b, "cpu       %.2f s:", r.CPUS)
	for _, a := range r.CPUByActor {
		fmt.Fprintf(&b, " %s %.2f s;", a.Actor, a.CPUS)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "iostat    w/s %.1f  wMB/s %.2f  avgrq-sz %.0f  avgqu-sz %.2f  await %.1f ms  util %.1f%%\n",
		r.Iostat.WriteIOPS, r.Iostat.WriteMBps, r.Iostat.AvgRqSz, r.Iostat.AvgQuSz, r.Iostat.AwaitMs, r.Iostat.UtilPct)
	if m := r.Media; m != nil {
		fmt.Fprintf(&b, "media     ops/s %.1f  seeks/s %.1f  seeking %.1f%%  rotating %.1f%%  transferring %.1f%% of the time\n",
			m.OpsS, m.SeeksS, m.SeekPct, m.RotatePct, m.XferPct)
	}
	if r.Reads.Count > 0 {
		fmt.Fprintf(&b, "reads     %d, latency mean %.2f ms, p99 %.1f ms, max %.1f ms\n", r.Reads.Count, r.Reads.MeanMs, r.Reads.P99Ms, r.Reads.MaxMs)
	}
	writeDisksSummary(&b, r.Disks)
	writeFullSummary(&b, r.Full)
	if r.WBT.Enabled {
		fmt.Fprintf(&b, "wbt       step %d at the end, %d scale events, %d windows over latency\n", r.WBT.FinalStep, r.WBT.Scales, r.WBT.Exceeded)
	}
	fmt.Fprintf(&b, "dirty age max %.1f s, mean %.1f s; inode metadata max %.1f s\n", r.DirtyAge.MaxS, r.DirtyAge.MeanS, r.DirtyAge.MaxMetaS)
	if len(r.FSStats) > 0 {
		fmt.Fprintf(&b, "%-9s", r.Filesystem)
		for _, st := range r.FSStats {
			fmt.Fprintf(&b, " %s %d;", st.Name, st.Value)
		}
		b.WriteString("\n")
	}
	if act := r.switchActivityLine(); act != "" {
		b.WriteString(act)
	}
	n := len(r.Tasks)
	show := min(n, 10)
	for _, t := range r.Tasks[:show] {
		fmt.Fprintf(&b, "  %s-%d  %.1f MB at %.2f MB/s, %d pauses (%.1f s, max %.0f ms)", t.Comm, t.PID, t.DirtiedMB, t.RateMBps, t.Pauses, t.PausedS, t.MaxPauseMs)
		switch {
		case t.Exit == ExitENOSPC:
			fmt.Fprintf(&b, ", exited with ENOSPC after %.2f s", t.RuntimeS)
		case t.Done:
			fmt.Fprintf(&b, ", finished in %.2f s", t.RuntimeS)
		}
		b.WriteString("\n")
	}
	if n > show {
		fmt.Fprintf(&b, "  ... %d more tasks\n", n-show)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// switchActivityLine lists the switch-guarded paths that ran (the others ran zero
// times), for the summary.
func (r *Result) switchActivityLine() string {
	names := make([]string, 0, len(r.SwitchActivity))
	for n, c := range r.SwitchActivity {
		if c > 0 {
			names = append(names, n)
		}
	}
	if len(r.SwitchActivity) == 0 {
		return ""
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "switches  paths that ran (%d of %d counted):", len(names), len(r.SwitchActivity))
	for i, n := range names {
		if i%4 == 0 {
			b.WriteString("\n         ")
		}
		fmt.Fprintf(&b, " %s %d;", n, r.SwitchActivity[n])
	}
	b.WriteString("\n")
	return b.String()
}
