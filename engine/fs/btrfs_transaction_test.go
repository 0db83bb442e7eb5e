package fs

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/trace"
)

// issued is one block_rq_issue of a trace: the issuing task, sector, sectors, rwbs.
type issued struct {
	comm, rwbs      string
	sector, sectors int64
}

// parseIssue parses block_rq_issue's payload "8,0 W 0 () 123456 + 1024 [comm]".
func parseIssue(t *testing.T, payload string) issued {
	f := strings.Fields(payload)
	require.GreaterOrEqual(t, len(f), 8, payload)
	s, err := strconv.ParseInt(f[4], 10, 64)
	require.NoError(t, err)
	n, err := strconv.ParseInt(f[6], 10, 64)
	require.NoError(t, err)
	return issued{comm: strings.Trim(f[7], "[]"), rwbs: f[1], sector: s, sectors: n}
}

// TestBtrfsCommitWritesBothDUPStripesAndTheSuperblocks: a commit writes its btree
// blocks to both stripes of the DUP metadata chunk, then the superblock copies
// inside the 100 GB device (64 KiB and 64 MiB; 256 GiB lies past it), the last one
// FUA (write_dev_supers' WRITE_FLUSH_FUA), and nothing else.
func TestBtrfsCommitWritesBothDUPStripesAndTheSuperblocks(t *testing.T) {
	b := NewBtrfs()
	w, k := testKernel(t, "wu2011-hdd", b, 100<<20, nil)
	var got []issued
	k.BDI.Q.SetTracer(trace.Func(trace.V32, func(task *sim.Task, event, payload string) {
		if event == "block_rq_issue" {
			if is := parseIssue(t, payload); is.comm == "btrfs-transacti" {
				got = append(got, is)
			}
		}
	}))
	b.t.pendingMeta = 10
	require.NoError(t, w.Run(b.P.CommitInterval+sim.Second))
	require.Equal(t, int64(1), b.t.Commits)
	stripe1 := b.P.MetaSector + b.P.MetaMB<<11
	want := []issued{
		{"btrfs-transacti", "WSM", b.P.MetaSector, 80},
		{"btrfs-transacti", "WSM", stripe1, 80},
		{"btrfs-transacti", "WSM", 128, 8},
		{"btrfs-transacti", "WFSM", 131072, 8},
	}
	assert.Equal(t, want, got)
	assert.Equal(t, int64(22), b.t.MetaPages, "10 btree pages twice and two superblocks")
	assert.Less(t, stripe1+b.P.MetaMB<<11, b.P.Layout.StartSector+1, "data chunks follow the metadata chunk")
}
