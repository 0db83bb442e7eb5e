package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// DiskResult is what one disk of a multi-disk machine (or a machine with
// editors) measured.
type DiskResult struct {
	BDI        string  `json:"bdi"`
	Device     string  `json:"device"`
	Filesystem string  `json:"fs"`
	WrittenMB  float64 `json:"written_MB"`
	DirtiedMB  float64 `json:"dirtied_MB"`
	// WriteMBps is the disk's write completions over the run (written / runtime).
	WriteMBps float64 `json:"write_MBps"`
	// BdiThreshMB and MaxDirtyMB: the bdi's share of the dirty limit at the end,
	// and the most dirty + writeback pages it held at a sample.
	BdiThreshMB float64 `json:"bdi_thresh_MB"`
	MaxDirtyMB  float64 `json:"max_dirty_MB"`
	// DDExitS is when the disk's last count-limited dd exited (0: none did).
	DDExitS float64 `json:"dd_exit_s,omitempty"`
	// FullAtS is when the disk's filesystem filled: a write() first failed with
	// ENOSPC (0: it never did).
	FullAtS float64         `json:"full_at_s,omitempty"`
	Editors []LatencyResult `json:"editors,omitempty"`
	Readers []LatencyResult `json:"readers,omitempty"`
	// Iostat is the disk's iostat -x over the run.
	Iostat *IostatSummary `json:"iostat,omitempty"`
}

// ExitENOSPC is TaskResult.Exit of a writer whose write() failed with ENOSPC.
const ExitENOSPC = "enospc"

// DiskFull is a disk whose filesystem filled during the run.
type DiskFull struct {
	BDI string `json:"bdi"`
	// FullAtS is when a write() first got less room than it asked for (ENOSPC).
	FullAtS float64 `json:"full_at_s"`
	// DDEnospc is how many dd exited with ENOSPC; EditorEnospc how many editor
	// saves failed with it.
	DDEnospc     int   `json:"dd_enospc,omitempty"`
	EditorEnospc int64 `json:"editor_enospc,omitempty"`
}

// writeFullSummary prints one line per full disk.
func writeFullSummary(w io.Writer, full []DiskFull) {
	for _, f := range full {
		fmt.Fprintf(w, "disk %s full at %.1f s: %d dd exited with ENOSPC", f.BDI, f.FullAtS, f.DDEnospc)
		if f.EditorEnospc > 0 {
			fmt.Fprintf(w, ", %d editor saves failed with ENOSPC", f.EditorEnospc)
		}
		fmt.Fprintln(w)
	}
}

// LatencyResult is a task's latency percentiles (histogram upper bounds within
// 25 %) in milliseconds; InFlightMs is an operation still unfinished at the end.
// An editor's also has its p90, where its saves' time went (TimeIn) and the
// latency over time (Series).
type LatencyResult struct {
	N          int64   `json:"n"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	MaxMs      float64 `json:"max_ms"`
	InFlightMs float64 `json:"in_flight_ms,omitempty"`
	P90Ms      float64 `json:"p90_ms,omitempty"`
	// TimeIn is where the completed saves' time went, one entry per wait cause
	// they spent time in (WaitDocs names the kernel function of each), in
	// WaitDocs order; the TotalMs sum to the saves' summed latency.
	TimeIn []WaitShare `json:"time_in,omitempty"`
	// Series is one point per save, in order (SeriesEvery > 1: every n-th save,
	// at most 2000 points; the percentiles count every save).
	Series      []SavePoint `json:"series,omitempty"`
	SeriesEvery int64       `json:"series_every,omitempty"`
}

// WaitShare is the time an editor's saves spent in one wait cause: in all (ms,
// and % of the saves' summed latency) and per save (p50, p99 of each save's time
// in it, saves without it counted as 0).
type WaitShare struct {
	Cause    string  `json:"cause"`
	TotalMs  float64 `json:"total_ms"`
	SharePct float64 `json:"share_pct"`
	P50Ms    float64 `json:"p50_ms"`
	P99Ms    float64 `json:"p99_ms"`
}

// SavePoint is one save: when it began (s), its latency (ms) and the wait cause
// it spent most time in.
type SavePoint struct {
	TimeS     float64 `json:"t_s"`
	LatencyMs float64 `json:"latency_ms"`
	Wait      string  `json:"wait"`
}

// writeDisksSummary prints one line per disk, and its editors' and readers' latency.
func writeDisksSummary(w io.Writer, disks []DiskResult) {
	for _, d := range disks {
		fmt.Fprintf(w, "disk %-5s %s/%s: written %.1f MB (%.1f MB/s), bdi_thresh %.1f MB, max dirty+writeback %.1f MB",
			d.BDI, d.Device, d.Filesystem, d.WrittenMB, d.WriteMBps, d.BdiThreshMB, d.MaxDirtyMB)
		if d.DDExitS > 0 {
			fmt.Fprintf(w, ", dd exited at %.1f s", d.DDExitS)
		}
		fmt.Fprintln(w)
		for _, e := range d.Editors {
			fmt.Fprintf(w, "  %s\n", EditorLine(d.BDI, d.Filesystem, e))
		}
		for _, rd := range d.Readers {
			fmt.Fprintf(w, "  reader  %d reads p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", rd.N, rd.P50Ms, rd.P99Ms, rd.MaxMs)
		}
	}
}

// EditorLine is an editor's (write+fsync) summary: "editor on 8:0: 58 saves,
// p50 12.1 ms, p90 40.0 ms, p99 210.0 ms, max 380.0 ms; time in: jbd2 commit
// 61 %, page writeback 22 %, ..." (causes by share, largest first).
func EditorLine(bdi, fs string, e LatencyResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "editor on %s: %d saves, p50 %.1f ms", bdi, e.N, e.P50Ms)
	if e.P90Ms > 0 {
		fmt.Fprintf(&b, ", p90 %.1f ms", e.P90Ms)
	}
	fmt.Fprintf(&b, ", p99 %.1f ms, max %.1f ms", e.P99Ms, e.MaxMs)
	if e.InFlightMs > 0 {
		fmt.Fprintf(&b, "; one in flight for %.1f ms", e.InFlightMs)
	}
	ws := slices.Clone(e.TimeIn)
	slices.SortStableFunc(ws, func(a, b WaitShare) int { return cmp.Compare(b.TotalMs, a.TotalMs) })
	for i, s := range ws {
		if i == 0 {
			b.WriteString("; time in: ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.0f %%", WaitName(s.Cause, fs), s.SharePct)
	}
	return b.String()
}
