package fs

import "github.com/wblab/wblab/engine/kernel"

// XFS's buffered-write folios and ioends of Linux 6.12 (docs/linux-6.12-notes.md,
// "fs/iomap/buffered-io.c and fs/xfs/xfs_aops.c"). The model keeps pages as runs
// (kernel.PageSet): a file's folios are not stored, they are the aligned blocks of
// xfsFolioPages pages its write() length gives.

// swXFSLargeFolios is 6.6's large folios in the buffered write path with 6.5's
// page count of nr_to_write: iomap_get_folio asks for a folio as large as the
// write (fgf_set_order), aligned by index and capped at MAX_PAGECACHE_ORDER; a
// writeback_iter pass subtracts folio_nr_pages per folio and stops at <= 0, so it
// ends at the end of the folio in which nr_to_write ran out. Off: the 3.x
// xfs_cluster_write rule the 6.1 preset keeps (order-0 pages; a cluster stops one
// page after nr_to_write reached 0).
var swXFSLargeFolios = kernel.DeclareSwitch(kernel.Switch{Name: "xfs_large_folios", Order: 475,
	Doc:    "6.6+: XFS buffered writes create folios as large as the write (≤ 2 MiB, aligned); writeback stops at the end of the folio where nr_to_write (pages, 6.5) reached 0",
	Models: "iomap_get_folio, __filemap_get_folio (fs/iomap/buffered-io.c, mm/filemap.c), writeback_iter (mm/page-writeback.c) v6.12.118",
	Source: "Wilcox, \"iomap: Create large folios in the buffered write path\" (6.6); Wilcox, \"writeback: Account the number of pages written back\" (6.5, to confirm); docs/linux-6.12-notes.md"})

var pathXFSNrToWriteStop = swXFSLargeFolios.DeclarePath("xfs_writepage.nr_to_write_stop",
	"WB_SYNC_NONE XFS ->writepage steps that nr_to_write ended (3.x: one page past it; 6.12: at the end of its folio)")

// swXFSIoendOneBio is 6.8's iomap writeback without chained bios: an ioend is one
// bio, so it also ends when the bio is full (BIO_MAX_VECS folios, one segment per
// folio) besides IOEND_BATCH_SIZE folios and a discontiguity. Off: the ioend is a
// ->writepage call's whole cluster (the model's 6.1, whose ioends chain bios).
var swXFSIoendOneBio = kernel.DeclareSwitch(kernel.Switch{Name: "xfs_ioend_one_bio", Order: 476,
	Doc:    "6.8+: an XFS ioend is one bio (at most 256 folios: 1 MiB with order-0 pages), submitted as soon as the next starts",
	Models: "iomap_add_to_ioend, iomap_can_add_to_ioend, fs/iomap/buffered-io.c v6.12.118",
	Source: "Hellwig, \"iomap: don't chain bios\", \"iomap: submit ioends immediately\" (6.8, to confirm); docs/linux-6.12-notes.md"})

var pathXFSIoendOverOneBio = swXFSIoendOneBio.DeclarePath("xfs_ioend.over_one_bio",
	"XFS ->writepage clusters longer than one bio (BIO_MAX_VECS folios): 6.1 chains bios in one ioend, 6.12 starts a new ioend")

const (
	// xfsMaxFolioPages is MAX_PAGECACHE_ORDER on x86-64 (the PMD order, 9): 2 MiB.
	xfsMaxFolioPages = 512
	// bioMaxVecs is BIO_MAX_VECS: folios per bio (one segment each; physically
	// contiguous folios could share one, which the model does not draw).
	bioMaxVecs = 256
	// ioendBatchFolios is IOEND_BATCH_SIZE.
	ioendBatchFolios = 4096
)

// xfsFolioPages is the size in pages of in's folios: with large folios the
// largest power of two not above its write() length and MAX_PAGECACHE_ORDER
// (a write of bs at bs-aligned offsets gets folios of bs when bs is a power of
// two), else 1.
func (x *Xfs) xfsFolioPages(in *kernel.Inode) int64 {
	if !x.k.P.Variants.On(swXFSLargeFolios) {
		return 1
	}
	n := min(in.WriteBytes/kernel.PageSize, xfsMaxFolioPages)
	f := int64(1)
	for f*2 <= n {
		f *= 2
	}
	return f
}

// clusterLen is how many pages past index one ->writepage step writes of the
// avail contiguous dirty pages after it. The 3.x rule (xfs_cluster_write):
// WB_SYNC_NONE clusters until nr_to_write is used up, one page past it. 6.12:
// with large folios, WB_SYNC_NONE stops at the end of the folio holding the
// page where nr_to_write reached 0 (writeback_iter); with one-bio ioends, a step
// (an ioend) ends when its bio is full. Both decisions are counted in every
// kernel.
func (x *Xfs) clusterLen(wc *kernel.WritebackCtx, index, avail int64) int64 {
	v := &x.k.P.Variants
	n := avail + 1 // pages from index
	if wc.Wbc.SyncMode == kernel.WBSyncNone {
		nr := max(wc.Wbc.NrToWrite, 1)
		if nr < n {
			x.k.Fired(pathXFSNrToWriteStop)
		}
		if !v.On(swXFSLargeFolios) {
			n = min(n, nr+1) // the page, then nr_to_write clustered ones
		} else {
			fp := x.xfsFolioPages(wc.In)
			n = min(n, (index+nr+fp-1)/fp*fp-index)
		}
	}
	fp := x.xfsFolioPages(wc.In)
	if lim := index/fp*fp + min(bioMaxVecs, ioendBatchFolios)*fp - index; n > lim {
		x.k.Fired(pathXFSIoendOverOneBio)
		if v.On(swXFSIoendOneBio) {
			n = lim
		}
	}
	return n - 1
}
