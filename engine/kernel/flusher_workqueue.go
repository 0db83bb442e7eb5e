package kernel

// This file is the v6 flusher (fs/fs-writeback.c v6.1): each bdi_writeback's
// work item wb_workfn on the bdi_wq workqueue instead of a kthread.

// swWorkqueueFlusher is the v6 flusher as a work item (wb_workfn): loops while
// works are queued, then wb_wakeup (immediate) for new works or
// wb_wakeup_delayed (queue_delayed_work: a pending timer is not moved) when
// dirty IO remains; wb_do_writeback runs wb_check_start_all before kupdate.
var swWorkqueueFlusher = declare(Switch{Name: "workqueue_flusher", Order: 270,
	Doc:    "v6: wb_workfn work item: immediate/delayed wakeups (pending delayed wakeup not moved), wb_check_start_all",
	Models: "wb_workfn, wb_wakeup_delayed, wb_do_writeback, fs/fs-writeback.c v6.1",
	Source: notesV6})

var pathWakeupDelayedKept = swWorkqueueFlusher.path("wb_wakeup_delayed.kept_pending",
	"delayed flusher wakeups that left a pending timer alone")

var pathFlusherIdle = swWorkqueueFlusher.path("flusher.idle",
	"flusher runs that ended with no work left: v6 wb_workfn returns after wb_wakeup_delayed, v3.2 bdi_writeback_thread sleeps dirty_writeback_interval")

// wbWorkfn is the v6 flusher work item (wb_workfn): it runs while works are
// queued, then returns; wb_wakeup queues it at once for new works,
// wb_wakeup_delayed after dirty_writeback_interval when dirty IO remains.
type wbWorkfn struct{ bdiThread }

// wakeupDelayed is wb_wakeup_delayed (v6): queue_delayed_work leaves a pending
// work alone.
func (d wbWorkfn) wakeupDelayed(f *Flusher) {
	if f.wakeup.Pending() {
		f.k.Fired(pathWakeupDelayedKept)
		return
	}
	d.bdiThread.wakeupDelayed(f)
}

// startAll is wb_start_all (v6, wakeup_flusher_threads): set WB_start_all and
// wake the flusher, whose wb_check_start_all writes every dirty page
// (WB_SYNC_NONE). A request while one is pending is dropped.
func (wbWorkfn) startAll(b *BDI, reason Reason) {
	f := b.flusher
	if f.startAll {
		return
	}
	f.startAll, f.startAllReason = true, reason
	f.wake()
}

// top does nothing: the v6 delayed work is this run itself.
func (wbWorkfn) top(*Flusher) {}

// idle is wb_workfn's end (v6): wb_wakeup_delayed when dirty IO remains; the
// work then waits to be queued (timer, wb_wakeup, new works).
func (d wbWorkfn) idle(f *Flusher) {
	if f.b.wbHasDirtyIO() && f.k.P.DirtyWritebackCs > 0 {
		d.wakeupDelayed(f)
	}
	f.th.Task.SleepInterruptible(-1)
}
