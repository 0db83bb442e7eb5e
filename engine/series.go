package engine

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// Column is one time-series column: its name (with the unit as suffix), unit,
// one-line meaning, the kernel variable or tracepoint it mirrors, and its sampler.
// Columns is the one table the CSV, the page's charts (a column no chart names
// goes to "Other series") and the docs read; adding a column is one row.
type Column struct {
	Name   string
	Unit   string
	Doc    string
	Kernel string
	sample func(x *sampleState) float64
}

// sampleState is what one sample computes once for every column.
type sampleState struct {
	now                           sim.Time
	k                             *kernel.Kernel
	bg, thresh, limit, setpoint   int64
	io                            devices.IostatRates
	wbt                           devices.WBTState
	wrote, chunk, pauseMs         float64
	dirtyList, ioList, moreIOList int
}

// Columns are the time series' columns, in order.
var Columns = []Column{
	{"time_s", "s", "simulated time of the sample", "", func(x *sampleState) float64 { return x.now.Seconds() }},
	{"dirty_MB", "MB", "dirty page cache", "NR_FILE_DIRTY (global_dirty_state dirty=)",
		func(x *sampleState) float64 { return mb(x.k.G.NrFileDirty) }},
	{"writeback_MB", "MB", "pages under writeback", "NR_WRITEBACK (global_dirty_state writeback=)",
		func(x *sampleState) float64 { return mb(x.k.G.NrWriteback) }},
	{"bg_thresh_MB", "MB", "background writeback threshold", "global_dirty_limits background_thresh (bg_thresh=)",
		func(x *sampleState) float64 { return mb(x.bg) }},
	{"thresh_MB", "MB", "dirty threshold", "global_dirty_limits dirty_thresh (thresh=)",
		func(x *sampleState) float64 { return mb(x.thresh) }},
	{"limit_MB", "MB", "smoothed hard dirty limit", "global_dirty_limit (limit=)",
		func(x *sampleState) float64 { return mb(x.limit) }},
	{"setpoint_MB", "MB", "balance_dirty_pages' global setpoint", "(limit + freerun) / 2 in bdi_position_ratio",
		func(x *sampleState) float64 { return mb(x.setpoint) }},
	{"dirty_ratelimit_MBps", "MB/s", "the bdi's dirty rate limit", "bdi->dirty_ratelimit (bdi_dirty_ratelimit dirty_ratelimit=)",
		func(x *sampleState) float64 { return mb(x.k.BDI.DirtyRatelimit) }},
	{"balanced_ratelimit_MBps", "MB/s", "the rate that would balance dirtying and writeback", "bdi->balanced_dirty_ratelimit (balanced_dirty_ratelimit=)",
		func(x *sampleState) float64 { return mb(x.k.BDI.BalancedDirtyRatelimit) }},
	{"task_ratelimit_MBps", "MB/s", "a dirtier's rate now: dirty_ratelimit × pos_ratio", "task_ratelimit (balance_dirty_pages task_ratelimit=)",
		func(x *sampleState) float64 { return mb(x.k.TaskRatelimitNow()) }},
	{"write_bw_MBps", "MB/s", "the bdi's estimated write bandwidth", "bdi->write_bandwidth (bdi_dirty_ratelimit write_bw=)",
		func(x *sampleState) float64 { return mb(x.k.BDI.WriteBandwidth) }},
	{"avg_write_bw_MBps", "MB/s", "its smoothed average", "bdi->avg_write_bandwidth (avg_write_bw=)",
		func(x *sampleState) float64 { return mb(x.k.BDI.AvgWriteBandwidth) }},
	{"iostat_r_s", "IO/s", "reads completed per second", "iostat -x r/s (/proc/diskstats)", func(x *sampleState) float64 { return x.io.RPS }},
	{"iostat_w_s", "IO/s", "writes completed per second", "iostat -x w/s", func(x *sampleState) float64 { return x.io.WPS }},
	{"iostat_rMBps", "MB/s", "read throughput", "iostat -x rMB/s", func(x *sampleState) float64 { return x.io.RMBps }},
	{"iostat_wMBps", "MB/s", "write throughput", "iostat -x wMB/s", func(x *sampleState) float64 { return x.io.WMBps }},
	{"iostat_avgrq_sz", "sectors", "mean request size", "iostat -x avgrq-sz", func(x *sampleState) float64 { return x.io.AvgRqSz }},
	{"iostat_avgqu_sz", "requests", "mean queue length", "iostat -x avgqu-sz", func(x *sampleState) float64 { return x.io.AvgQuSz }},
	{"iostat_await_ms", "ms", "mean request time (queue + service)", "iostat -x await", func(x *sampleState) float64 { return x.io.Await }},
	{"iostat_util_pct", "%", "time the device was busy", "iostat -x %util", func(x *sampleState) float64 { return x.io.Util }},
	{"device_queue", "requests", "requests issued to the device at the sample", "in-flight requests (NCQ / tags)",
		func(x *sampleState) float64 { return x.io.DevQu }},
	{"wbt_step", "step", "blk-wbt scale step", "rwb->scale_step (wbt_step)", func(x *sampleState) float64 { return float64(x.wbt.Step) }},
	{"wbt_max", "requests", "blk-wbt limit for sync/high priority writes", "rwb->wb_max", func(x *sampleState) float64 { return float64(x.wbt.Max) }},
	{"wbt_normal", "requests", "blk-wbt limit for normal writes", "rwb->wb_normal", func(x *sampleState) float64 { return float64(x.wbt.Normal) }},
	{"wbt_background", "requests", "blk-wbt limit for background writes", "rwb->wb_background",
		func(x *sampleState) float64 { return float64(x.wbt.Background) }},
	{"wbt_inflight", "requests", "writes blk-wbt counts in flight", "rwb->rq_wait[].inflight", func(x *sampleState) float64 { return float64(x.wbt.Inflight) }},
	{"wsi_wrote_MB", "MB", "pages written per writeback_single_inode call since the last sample", "writeback_single_inode wrote=",
		func(x *sampleState) float64 { return x.wrote }},
	{"wsi_nr_to_write_MB", "MB", "nr_to_write per writeback chunk since the last sample", "writeback_single_inode to_write=",
		func(x *sampleState) float64 { return x.chunk }},
	{"inode_dirty_age_max_s", "s", "age of the oldest dirty inode", "jiffies - inode->dirtied_when",
		func(x *sampleState) float64 { return float64(x.k.MaxDirtyAge()) / float64(x.k.W.HZ()) }},
	{"bdp_pause_ms", "ms", "mean balance_dirty_pages pause since the last sample", "balance_dirty_pages pause=",
		func(x *sampleState) float64 { return x.pauseMs }},
	{"b_dirty_inodes", "inodes", "inodes on b_dirty", "bdi->wb.b_dirty", func(x *sampleState) float64 { return float64(x.dirtyList) }},
	{"b_io_inodes", "inodes", "inodes on b_io", "bdi->wb.b_io", func(x *sampleState) float64 { return float64(x.ioList) }},
	{"b_more_io_inodes", "inodes", "inodes on b_more_io", "bdi->wb.b_more_io", func(x *sampleState) float64 { return float64(x.moreIOList) }},
	{"b_more_io_wait_inodes", "inodes", "inodes on b_more_io_wait (Wu 2011 patch 1)", "bdi->wb.b_more_io_wait",
		func(x *sampleState) float64 { return float64(x.k.BDI.MoreIOWaitLen()) }},
	{"dirtied_MB", "MB", "pages dirtied so far", "NR_DIRTIED (global_dirty_state dirtied=)", func(x *sampleState) float64 { return mb(x.k.G.NrDirtied) }},
	{"written_MB", "MB", "pages written so far", "NR_WRITTEN (global_dirty_state written=)", func(x *sampleState) float64 { return mb(x.k.G.NrWritten) }},
}

// SeriesNames are the time series' columns, in the order of Series.Names and of the
// rows RunOptions.Sample gets.
func SeriesNames() []string {
	out := make([]string, len(Columns))
	for i, c := range Columns {
		out[i] = c.Name
	}
	return out
}
