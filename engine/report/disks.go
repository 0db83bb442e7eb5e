package report

import (
	"fmt"
	"io"
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
type LatencyResult struct {
	N          int64   `json:"n"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	MaxMs      float64 `json:"max_ms"`
	InFlightMs float64 `json:"in_flight_ms,omitempty"`
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
			fmt.Fprintf(w, "  editor  %d saves (write+fsync) p50 %.1f ms, p99 %.1f ms, max %.1f ms", e.N, e.P50Ms, e.P99Ms, e.MaxMs)
			if e.InFlightMs > 0 {
				fmt.Fprintf(w, "; one in flight for %.1f ms", e.InFlightMs)
			}
			fmt.Fprintln(w)
		}
		for _, rd := range d.Readers {
			fmt.Fprintf(w, "  reader  %d reads p50 %.1f ms, p99 %.1f ms, max %.1f ms\n", rd.N, rd.P50Ms, rd.P99Ms, rd.MaxMs)
		}
	}
}
