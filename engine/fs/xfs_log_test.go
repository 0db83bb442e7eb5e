package fs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/trace"
)

// TestXfsLogCheckpointThenMetadataHome: one dd on XFS for 65 s. Every 30 s
// xfssyncd forces the log: the CIL checkpoint (here the delalloc conversion's
// allocation of the file's first 1 GB window) goes to the log at the start of AG 2
// (the middle AG of mkfs's 4) as WRITE_SYNC, and once it is on disk the logged
// metadata goes home (AGF and free-space btree roots, the inode cluster) near the
// start of AG 0, as plain writes sorted by block. The 60 s force finds the CIL
// empty (3.1's kupdate ->write_inode logs nothing) and writes nothing.
func TestXfsLogCheckpointThenMetadataHome(t *testing.T) {
	x := NewXfs()
	w, k := testKernel(t, "wu2011-hdd", x, 100<<20, nil)
	var log, home []issued
	var logAt, homeAt []sim.Time
	k.BDI.Q.SetTracer(trace.Func(trace.V32, func(task *sim.Task, event, payload string) {
		if event != "block_rq_issue" {
			return
		}
		is := parseIssue(t, payload)
		switch is.comm {
		case "xfssyncd", "xfsbufd":
			if is.rwbs == "WSM" {
				log, logAt = append(log, is), append(logAt, w.Now())
			} else {
				home, homeAt = append(home, is), append(homeAt, w.Now())
			}
		}
	}))
	runDD(t, w, k, 1, 65*sim.Second, false)
	agSectors := k.BDI.Q.Spec().CapacityBytes / 512 / x.P.AGCount
	require.Len(t, log, 1, "one checkpoint: the 30 s force; at 60 s the CIL is empty")
	for i, l := range log {
		assert.GreaterOrEqual(t, l.sector, 2*agSectors, "the log is in AG 2")
		assert.Less(t, l.sector, 2*agSectors+x.log.logPages*8)
		assert.GreaterOrEqual(t, logAt[i], sim.Time(i+1)*x.P.SyncdInterval)
	}
	require.NotEmpty(t, home)
	assert.Greater(t, homeAt[0], logAt[0], "metadata goes home after its checkpoint is written")
	for _, h := range home {
		assert.Equal(t, "WM", h.rwbs, "xfsaild and xfsbufd write plain WRITEs")
		assert.Less(t, h.sector, int64(2048), "AG 0's headers, btree roots and inode clusters")
	}
	assert.Equal(t, int64(1), x.log.Checkpoints)
	assert.Positive(t, x.log.HomePages)
}

// TestXfsFlushBuftargReleasesFlushLocksEarly: an inode flushed into its cluster
// buffer at 20 s stays flush-locked until xfsbufd would write the buffer (35 s),
// unless xfssyncd's push at 30 s (xfsaild's xfs_flush_buftarg writes every
// delayed-write buffer) writes it first: its completion (xfs_iflush_done) releases
// the lock then, and xfsbufd has nothing left to write.
func TestXfsFlushBuftargReleasesFlushLocksEarly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		logged bool // something in the CIL, so xfssyncd runs a checkpoint and a push
	}{{"push at 30 s", true}, {"xfsbufd at 35 s", false}} {
		t.Run(tc.name, func(t *testing.T) {
			x := NewXfs()
			w, k := testKernel(t, "wu2011-hdd", x, 100<<20, nil)
			in := k.NewInode()
			require.NoError(t, w.Run(20*sim.Second))
			x.iflushCluster(in, w.Now())
			xi := in.FS.(*xfsInode)
			require.Equal(t, 35*sim.Second, xi.flushTill)
			if tc.logged {
				x.log.logInode(in)
			}
			require.NoError(t, w.Run(32*sim.Second))
			home := x.log.HomePages
			require.NoError(t, w.Run(40*sim.Second))
			if tc.logged {
				assert.Greater(t, xi.flushTill, 30*sim.Second)
				assert.Less(t, xi.flushTill, 31*sim.Second, "released when the push's write completed")
				assert.Equal(t, home, x.log.HomePages, "xfsbufd found the buffer written")
			} else {
				assert.Equal(t, 35*sim.Second, xi.flushTill)
				assert.Equal(t, int64(0), home)
				assert.Equal(t, int64(xfsClusterPages), x.log.HomePages, "xfsbufd wrote the cluster buffer")
			}
		})
	}
}
