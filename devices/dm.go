package devices

import (
	"strconv"

	"github.com/wblab/wblab/engine/sim"
)

// Bio-based device-mapper (drivers/md/dm.c and dm-linear.c, v2.6.36), the layer a
// Spec with DM set puts between the filesystem and the disk.
//
// The filesystem's bdi is the dm device's; dm has no request queue of its own
// (its make_request_fn is dm_request), so requests, merging, the request pool and
// its congestion marks are the underlying disk's queue's, as without dm. What dm
// adds is work per bio:
//   - submission, in the submitter's context: _dm_request takes md->io_lock
//     (down_read) and accounts the bio; __split_and_process_bio allocates a dm_io
//     from md->io_pool; __clone_and_map allocates a dm_target_io and clone_bio a
//     clone from md->bs (bio_alloc_bioset, __bio_clone copies the bio_vecs);
//     __map_bio calls the target's map (linear_map: bi_bdev and bi_sector remapped)
//     and generic_make_request(clone), which current->bio_list defers until
//     dm_request returns: the clone then goes through __generic_make_request and
//     __make_request on the disk's queue. dm-linear has a merge method
//     (linear_merge), so dm_merge_bvec does not limit bios to one page, and
//     max_io_len does not split a bio inside the target;
//   - completion, in interrupt context: clone_endio frees the target_io and the
//     clone, dec_pending ends the accounting, frees the dm_io and calls
//     bio_endio on the original bio.
//
// The mempools (MIN_IOS = 256 dm_io and target_io, a bioset of 256) only block
// when the slab allocation under them fails, i.e. under memory pressure: a
// writeback stream does not sleep in dm.

const dmDoc = "bio-based device-mapper (dm-linear, 2.6.36) between the filesystem and the disk: a clone per bio submitted, the bdi is 253:N"

// DMMajor is the major device-mapper gets on the machines the threads ran on. It is
// not fixed: dm_init's register_blkdev(0, "device-mapper") takes a free major from
// 254 down, as virtio_blk's does ("virtblk"), so 253 names dm on some machines and
// the virtio disks (vda 253:0, vdb 253:16: PART_BITS 4 in virtio_blk.c) on others.
const DMMajor = 253

// DMName is the major:minor of the dm device with that minor (dm's minors count
// from 0 in creation order).
func DMName(minor int) string { return strconv.Itoa(DMMajor) + ":" + strconv.Itoa(minor) }

// DMSubmitBio is the CPU one bio costs its submitter through dm, given what the
// kernel charges for submit_bio on a plain disk (kernel Costs.SubmitBio: the
// generic_make_request entry and __make_request's merge or request allocation).
// Through dm the original bio's generic_make_request reaches dm_request instead of
// __make_request, and the clone then makes a second pass through
// generic_make_request and __make_request: dm's own work per bio (an rwsem, two
// mempool allocations and a bio clone with its bio_vec copy, the target lookup and
// remap) is priced as one more submission of the same cost. No measurement of dm's
// per-bio cost on a 2010 machine was found; this uses the model's own submit_bio
// cost rather than a new figure.
func DMSubmitBio(base sim.Time) sim.Time { return 2 * base }
