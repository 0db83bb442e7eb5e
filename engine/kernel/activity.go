package kernel

import (
	"maps"
	"sort"
)

// Switch activity: every code path whose behaviour a kernel switch decides counts
// how often it ran, so a comparison can tell a change that made no difference
// from a change that never ran. Counters are kept for both kernels of a
// comparison: a path counts each time its decision point is reached, whichever
// way the switch sends it.

// Cause is why writeback_single_inode / writeback_sb_inodes put an inode back on
// a list.
type Cause uint8

// Requeue causes.
const (
	CauseSliceUsed    Cause = iota // dirty pages left, nr_to_write used up
	CauseBlocked                   // dirty pages left although nr_to_write was not used up
	CauseInodeDirty                // the inode is dirty again (->write_inode failed, fs redirtied it)
	CauseISync                     // someone else holds I_SYNC (WB_SYNC_NONE)
	CausePagesSkipped              // ->writepage redirtied pages (pages_skipped)
	CauseNewFreeing                // I_NEW / I_FREEING / I_WILL_FREE
	numCauses
)

var causeNames = [numCauses]string{"slice_used", "blocked", "inode_dirty", "i_sync", "pages_skipped", "new_or_freeing"}

// requeue operations
const (
	opRedirtyTail = iota
	opRequeueIO
	opRequeueIOWait
	numOps
)

var opNames = [numOps]string{"redirty_tail", "requeue_io", "requeue_io_wait"}

// requeueSwitches are the switches that decide where each cause requeues.
var requeueSwitches = [numCauses][]SwitchID{
	CauseSliceUsed:    {swRequeueInode},
	CauseBlocked:      {swBlockedRequeueWait, swRequeueInode, swMoreIOWait, swRemoveMoreIOWait},
	CauseInodeDirty:   {swWriteInodeRequeueWait, swRequeueInode, swMoreIOWait, swRemoveMoreIOWait},
	CauseISync:        {swISyncRequeueWait, swSbInodesISyncCheck, swMoreIOWait, swRemoveMoreIOWait},
	CausePagesSkipped: {swPagesSkippedRequeueWait, swNoRedirtyOnPagesSkipped, swRequeueInode, swMoreIOWait, swRemoveMoreIOWait},
	CauseNewFreeing:   nil,
}

var requeueDocs = [numCauses]string{
	CauseSliceUsed:    "dirty pages left after the slice (nr_to_write <= 0)",
	CauseBlocked:      "dirty pages left although the slice was not used up",
	CauseInodeDirty:   "the inode was dirty again after writeback (->write_inode failed, fs redirtied it)",
	CauseISync:        "the inode was under I_SYNC (another writer)",
	CausePagesSkipped: "->writepage redirtied pages (pages_skipped)",
	CauseNewFreeing:   "I_NEW, I_FREEING or I_WILL_FREE",
}

// activity is the kernel's counters.
type activity struct {
	requeue [numOps][numCauses]int64
	n       [maxPaths]int64
}

// Fired counts one run of path id.
func (k *Kernel) Fired(id PathID) { k.act.n[id]++ }

// FiredN counts n runs of path id.
func (k *Kernel) FiredN(id PathID, n int64) { k.act.n[id] += n }

// requeued counts a requeue operation by cause.
func (k *Kernel) requeued(op int, c Cause) { k.act.requeue[op][c]++ }

// ActivityPaths lists every counted path, sorted by name.
func ActivityPaths() []ActivityPath {
	var out []ActivityPath
	for op := range numOps {
		for c := range numCauses {
			var sws []string
			for _, s := range requeueSwitches[c] {
				sws = append(sws, s.Switch().Name)
			}
			out = append(out, ActivityPath{Name: opNames[op] + "." + causeNames[c],
				Doc: opNames[op] + ": " + requeueDocs[c], Switches: sws})
		}
	}
	out = append(out, paths...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SwitchActivity reports how often each switch-guarded path ran, by path name:
// the paths that ran (a path missing ran zero times; ActivityPaths lists them all).
func (k *Kernel) SwitchActivity() map[string]int64 {
	m := make(map[string]int64, int(numOps*numCauses)+len(paths))
	for op := range numOps {
		for c := range numCauses {
			m[opNames[op]+"."+causeNames[c]] = k.act.requeue[op][c]
		}
	}
	for id, p := range paths {
		m[p.Name] = k.act.n[id]
	}
	// the pdflush pool and blk-wbt count in their own stats
	set := func(id PathID, n int64) { m[paths[id].Name] = n }
	ps := k.PdflushStats()
	set(pathPdflushThreadStart, int64(ps.Started))
	set(pathPdflushThreadExit, int64(ps.Exited))
	set(pathPdflushOperations, ps.Operations+ps.Failed)
	st := k.Q.WBT()
	set(pathWbtThrottleMax, st.ThrottledMax)
	set(pathWbtThrottleNormal, st.ThrottledNormal)
	set(pathWbtThrottleBackground, st.ThrottledBackground)
	// only the paths that ran: a switch or path declared later leaves the Results
	// of the runs it does not touch byte-identical (issue 34)
	maps.DeleteFunc(m, func(_ string, n int64) bool { return n == 0 })
	return m
}

// NeverRan lists, of the switches that differ between a and b, those whose
// counted paths ran zero times in both runs' activity (sorted). Switches with no
// counted path are not listed: the model cannot tell.
func NeverRan(a, b Variants, actA, actB map[string]int64) []string {
	var out []string
	for _, name := range VariantNames() {
		va, _ := a.Get(name)
		vb, _ := b.Get(name)
		if va == vb {
			continue
		}
		counted, ran := false, false
		for _, p := range ActivityPaths() {
			for _, s := range p.Switches {
				if s == name {
					counted = true
					ran = ran || actA[p.Name] > 0 || actB[p.Name] > 0
				}
			}
		}
		if counted && !ran {
			out = append(out, name)
		}
	}
	return out
}
