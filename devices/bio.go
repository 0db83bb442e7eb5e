package devices

import "github.com/wblab/wblab/engine/sim"

// Op is a request direction.
type Op uint8

// Directions.
const (
	Read Op = iota
	Write
)

func (o Op) String() string {
	if o == Read {
		return "R"
	}
	return "W"
}

// Flags are REQ_* bits that matter to the block layer and blk-wbt.
type Flags uint16

// Request flags. What the kernel sets (kernel-notes §3.5): WB_SYNC_ALL writeback,
// fsync and jbd/jbd2 commit writes carry FlagSync; for_background and for_kupdate
// writeback carry FlagBackground (v4.10+ wbc_to_write_flags); journal and inode
// metadata carry FlagMeta; O_DIRECT writes carry FlagSync|FlagIdle; writes issued by
// kswapd (reclaim) carry FlagKswapd.
const (
	FlagSync       Flags = 1 << iota // REQ_SYNC: WB_SYNC_ALL writeback, jbd commit writes, O_DIRECT
	FlagBackground                   // REQ_BACKGROUND: kupdate / background writeback (v4.10+)
	FlagMeta                         // REQ_META
	FlagFUA                          // REQ_FUA: written through the device's volatile cache; never merged
	FlagPrio                         // REQ_PRIO
	FlagIdle                         // REQ_IDLE (with SYNC: O_DIRECT, not throttled by wbt)
	FlagKswapd                       // issued by kswapd: wbt limit is max (current_is_kswapd)
	FlagReadahead                    // REQ_RAHEAD (trace "A" only)
)

// Geometry.
const (
	SectorSize  = 512
	PageSize    = 4096
	PageSectors = PageSize / SectorSize
)

// Completer receives completions: the pages [index, index+pages) of the owner's
// object cookie finished with op. Called from the event loop at completion time.
type Completer interface {
	EndIO(cookie uint64, index, pages int64, op Op)
}

// Bio is a contiguous run of pages submitted by one task for one owner object.
// A run stands for the bios the kernel would submit for those pages (one per page
// for block_write_full_page, larger for clustered writeback); the queue merges them
// into requests exactly as contiguous bios merge.
type Bio struct {
	Sector int64 // first 512-byte sector on the device
	Pages  int64 // length in 4 KiB pages
	Op     Op
	Flags  Flags
	Owner  Completer
	Cookie uint64 // owner's handle (inode number)
	Index  int64  // owner's page index of the first page
}

// EndSector is the sector after the bio.
func (b *Bio) EndSector() int64 { return b.Sector + b.Pages*PageSectors }

// segment is the part of a request that belongs to one owner run.
type segment struct {
	owner  Completer
	cookie uint64
	index  int64
	pages  int64
}

// Request is a merged block request. Requests are pooled by the queue: a pointer is
// valid only between Device.Issue and Queue.Complete.
type Request struct {
	Sector   int64
	Pages    int64
	Op       Op
	Flags    Flags
	Submit   sim.Time // allocated (entered the queue): diskstats start time
	Dispatch sim.Time // issued to the device

	q     *Queue
	segs  []segment
	comm  *sim.Task // task that allocated the request (trace comm)
	class int8      // pool the request came from
	state reqState
	wbt   bool // counted in wbt inflight (a throttled write)
	seq   uint64
	// elevator
	fifoPrev, fifoNext *Request
	expire             sim.Time
	cfqq               *cfqQueue
	// device-owned per-request event (parallel models, HDD cache acks)
	timer sim.Timer
	done  sim.Time // device: scheduled completion
}

type reqState uint8

const (
	rqFree reqState = iota
	rqPlugged
	rqQueued // in the elevator
	rqIssued
)

// EndSector is the sector after the request.
func (r *Request) EndSector() int64 { return r.Sector + r.Pages*PageSectors }

// Bytes is the request size in bytes.
func (r *Request) Bytes() int64 { return r.Pages * PageSize }

// Sectors is the request size in 512-byte sectors.
func (r *Request) Sectors() int64 { return r.Pages * PageSectors }

func (r *Request) addSeg(b *Bio, pages int64) {
	if n := len(r.segs); n > 0 {
		s := &r.segs[n-1]
		if s.owner == b.Owner && s.cookie == b.Cookie && s.index+s.pages == b.Index {
			s.pages += pages
			return
		}
	}
	r.segs = append(r.segs, segment{b.Owner, b.Cookie, b.Index, pages})
}

// prependSeg adds the front-merged pages [b.Index, b.Index+pages) before the others.
func (r *Request) prependSeg(b *Bio, pages int64) {
	if len(r.segs) > 0 {
		s := &r.segs[0]
		if s.owner == b.Owner && s.cookie == b.Cookie && b.Index+pages == s.index {
			s.index -= pages
			s.pages += pages
			return
		}
	}
	r.segs = append(r.segs, segment{})
	copy(r.segs[1:], r.segs)
	r.segs[0] = segment{b.Owner, b.Cookie, b.Index, pages}
}
