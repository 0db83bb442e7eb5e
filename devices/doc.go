// Package devices is wblab's block layer and device models: bios, per-task plugging,
// merging into requests up to max_sectors_kb, the legacy request pool with congestion
// marks or blk-mq style tags, an elevator (v3.2 deadline, noop, or v3.2 CFQ with
// per-task sync queues, a shared async queue, slices and idling), dispatch up to the device's
// queue depth, blk-wbt, service-time models (simple, HDD, SATA SSD, NVMe, capped
// virtual disk) and iostat accounting. It imports only engine/sim.
//
// Everything is deterministic: no goroutines, channels, wall clock or package-level
// mutable state; times are integer nanoseconds and sizes integer bytes or pages.
//
// # Using the package from the kernel model
//
// One Queue per block device: q, err := devices.New(w, spec, blk). The Spec is the
// hardware, from devices.Preset(name) or devices.ParseSpec("wu2011-hdd,qd=1,wbt=on"),
// which also returns the keys that belong to the block layer (BlockOverrides). The
// Block is the kernel's block layer in front of it: LegacyBlock(spec, 512) (v3.2:
// request pools, 512 KiB requests, 16-request plugs) or MQBlock(spec) (v6 blk-mq),
// as the kernel preset chooses, with the overrides set by BlockOverrides.Apply.
// Spec.DM puts a dm-linear device between the filesystem and the disk (dm.go).
// Every task that submits IO gets a Submitter: s := q.NewSubmitter(task).
//
// Submitting. q.Submit(s, bio) queues a run of pages; it returns true when the task
// must block (no request in the pool, no blk-mq tag, or over its wbt limit): the
// queue has flushed the task's plug and put the task on a wait queue; the task is
// resumed (Task.Resume) once every page of the bio has a request, and must not
// submit until then (s.Blocked()). q.Room(s, bio) is how many pages of a run starting
// like bio would be accepted without blocking: pass the same Op and Flags as the
// Submit (the flags choose the wbt limit and, on legacy queues, the sync or async
// pool). Completions arrive as bio.Owner.EndIO(cookie, index, pages, op) (a
// Completer), once per contiguous run of one owner in a request, from the event loop.
//
// Flags (kernel-notes §3.5, wbc_to_write_flags):
//   - WB_SYNC_ALL writeback (fsync, sync), jbd/jbd2 commit data and journal
//     writes (WRITE_SYNC): FlagSync (journal blocks also FlagMeta); wbt limit wb_max,
//     and the sync request pool on legacy queues;
//   - for_background and for_kupdate flusher writeback: FlagBackground (limit
//     wb_background);
//   - other writeback (bdi_start_writeback, reclaim-triggered): no flag (wb_normal);
//     writes issued by kswapd: FlagKswapd (wb_max);
//   - O_DIRECT writes: FlagSync|FlagIdle (not throttled by wbt);
//   - reads: Op Read (never throttled; they feed wbt's latency windows and make
//     nearby writes use wb_background for 100 ms); readahead may add FlagReadahead.
//
// balance_dirty_pages. When a dirtier sleeps in balance_dirty_pages, call
// q.NoteDirtySleep(w.Now()) (wb->dirty_sleep = jiffies): for the next second
// throttled writes use wb_max and completions wake waiters at wb_normal even with a
// volatile write cache (wb_recent_wait).
//
// Plugging. s.StartPlug() / s.FinishPlug() bracket what the kernel runs under
// blk_start_plug (ext4_da_writepages, jbd commit, v6 wb_writeback). The plug flushes
// by itself at PlugCount requests (16 v3.2, 32 v6) or when its last request reaches
// PlugBytes (128 KiB v6), and when Submit blocks. A plugged task that sleeps for any
// other reason (a lock, balance_dirty_pages, waiting on a page) must call
// s.FlushPlug() first, as schedule() does.
//
// Back-pressure. q.Congested(devices.Write) is v3.2's bdi_write_congested (the async
// pool's mark, 113 on / 103 off of 128); blk-mq queues never report congestion.
//
// Observing. q.Stats() returns cumulative diskstats counters (Iostat); Rates(prev,
// cur, 0) turns two snapshots into iostat -x columns. q.WBT() is wbt's state (step,
// limits, inflight, waiters). q.Inflight(), q.Queued(), q.Pending(), q.Waiters() are
// queue lengths. q.SetTracer(fn) receives block_rq_issue / block_rq_complete,
// block_sleeprq (a submitter waiting for a legacy request, get_request_wait) and
// wbt_stat / wbt_lat / wbt_step / wbt_timer payloads (see Tracer); q.SetDevName("8:16")
// names the device in them.
//
// Kernel presets select the block layer and blk-wbt through Block fields (not the
// Spec, which is hardware only): WBT (on/off), WBTDraft + WBTDepth 64 for the 2016
// patch series (4.6+wbt), WBTQD1 for its QD=1 patch (4.6+wbt+qd1), WBTV6 (+ WBTQD1)
// for v6.x; BlkMQ, NrRequests, MaxSectorsKB, PlugCount and PlugBytes for the block
// layer era. The Spec's Elevator is the scheduler the disk's setup selects.
package devices
