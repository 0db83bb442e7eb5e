package fs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/wblab/wblab/engine/kernel"
)

// TestXfsWritepageClustersPastNrToWrite: xfs_vm_writepage always calls
// xfs_cluster_write; each xfs_convert_page writes its page and then tests
// --nr_to_write <= 0 (WB_SYNC_NONE), so a call entered with nr_to_write ≤ 0 still
// writes the next page of the extent, and one entered with n > 0 writes 1 + n
// (2.6.36-3.2 fs/xfs/linux-2.6/xfs_aops.c). WB_SYNC_ALL clusters to the extent end.
func TestXfsWritepageClustersPastNrToWrite(t *testing.T) {
	for _, tc := range []struct {
		name          string
		mode          kernel.SyncMode
		nr            int64
		wantPages     int64
		wantNrToWrite int64
	}{
		{"nr_to_write 0: one clustered page", kernel.WBSyncNone, 0, 2, -1},
		{"nr_to_write -3: one clustered page", kernel.WBSyncNone, -3, 2, -4},
		{"nr_to_write 5: five clustered pages", kernel.WBSyncNone, 5, 6, 0},
		{"WB_SYNC_ALL: to the end of the run", kernel.WBSyncAll, 0, 16, -15},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := NewXfs()
			_, k := testKernel(t, "simple", x, 1<<30, nil)
			in := k.NewInode()
			dirty(k, in, 16)
			wc := &kernel.WritebackCtx{K: k, Th: k.NewThread("flush"), In: in,
				Wbc: kernel.WritebackControl{SyncMode: tc.mode, NrToWrite: tc.nr}}
			assert.Equal(t, tc.wantPages, x.Writepage(wc, 0, 16))
			assert.Equal(t, tc.wantNrToWrite, wc.Wbc.NrToWrite)
		})
	}
}
