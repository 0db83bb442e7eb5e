// Package devices is wblab's block layer and device models: bios, per-task plugging,
// merging into requests up to max_sectors_kb, the legacy request pool with congestion
// marks, dispatch up to the device's queue depth, service-time models and iostat
// accounting. It imports only engine/sim.
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

// Request flags.
const (
	FlagSync       Flags = 1 << iota // REQ_SYNC: WB_SYNC_ALL writeback, jbd commit writes, O_DIRECT
	FlagBackground                   // REQ_BACKGROUND: kupdate / background writeback (v4.10+)
	FlagMeta                         // REQ_META
	FlagFUA                          // REQ_FUA
	FlagPrio                         // REQ_PRIO
	FlagIdle                         // REQ_IDLE (with SYNC: O_DIRECT, not throttled by wbt)
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

// Request is a merged block request.
type Request struct {
	Sector   int64
	Pages    int64
	Op       Op
	Flags    Flags
	Submit   sim.Time // allocated (entered the queue)
	Dispatch sim.Time // issued to the device
	segs     []segment
	inUse    bool
	issued   bool
	wbtLimit bool // counted in wbt inflight
	next     *Request
}

// EndSector is the sector after the request.
func (r *Request) EndSector() int64 { return r.Sector + r.Pages*PageSectors }

// Bytes is the request size in bytes.
func (r *Request) Bytes() int64 { return r.Pages * PageSize }

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
