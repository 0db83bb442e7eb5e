package kernel

import (
	"sort"
	"strings"

	"github.com/wblab/wblab/engine/sim"
)

// i_state bits (include/linux/fs.h, v3.2).
const (
	IDirtySync     = 1 << 0 // I_DIRTY_SYNC: inode metadata dirty (e.g. timestamps)
	IDirtyDatasync = 1 << 1 // I_DIRTY_DATASYNC: metadata needed by fdatasync (i_size)
	IDirtyPages    = 1 << 2 // I_DIRTY_PAGES: the mapping has dirty pages
	INew           = 1 << 3
	IWillFree      = 1 << 4
	IFreeing       = 1 << 5
	IClear         = 1 << 6
	ISync          = 1 << 7 // I_SYNC: writeback of this inode in progress
	IReferenced    = 1 << 8
	// ISyncQueued is I_SYNC_QUEUED (v5.9+, switch i_sync_queued): the inode is on
	// b_io/b_more_io for the flusher. show_inode_state does not print it.
	ISyncQueued = 1 << 9

	IDirty = IDirtySync | IDirtyDatasync | IDirtyPages
)

var stateNames = []struct {
	bit  int
	name string
}{
	{IDirtySync, "I_DIRTY_SYNC"}, {IDirtyDatasync, "I_DIRTY_DATASYNC"}, {IDirtyPages, "I_DIRTY_PAGES"},
	{INew, "I_NEW"}, {IWillFree, "I_WILL_FREE"}, {IFreeing, "I_FREEING"}, {IClear, "I_CLEAR"},
	{ISync, "I_SYNC"}, {IReferenced, "I_REFERENCED"},
}

// StateString renders i_state like the tracepoints' show_inode_state().
func StateString(s int) string {
	var b strings.Builder
	for _, n := range stateNames {
		if s&n.bit != 0 {
			if b.Len() > 0 {
				b.WriteByte('|')
			}
			b.WriteString(n.name)
		}
	}
	return b.String()
}

// Inode is a file's inode and its page cache (address_space) state.
type Inode struct {
	Ino   uint64
	State int   // i_state
	Size  int64 // i_size in bytes

	DirtiedWhen    int64 // dirtied_when, jiffies
	WritebackIndex int64 // mapping->writeback_index

	Dirty     PageSet // PAGECACHE_TAG_DIRTY
	Writeback PageSet // PG_writeback
	// page-reclaim model (vmscan.go): pages in the page cache, PG_reclaim, and the
	// truncate generation of the LRU entries
	cached, pgReclaim PageSet
	lruGen            uint32

	// FS is the filesystem's private per-inode state.
	FS any
	// WriteBytes is the length of the write() calls that dirty the file (dd's
	// bs; 0 when unknown): a 6.6+ iomap file system sizes its folios by it.
	WriteBytes int64

	// bookkeeping
	bdi        *BDI // the disk the file lives on (inode_to_bdi)
	list       *inodeList
	prev, next *Inode
	wbWait     sim.WaitQueue // waiters for writeback completion on this inode
	syncWait   sim.WaitQueue // waiters for I_SYNC to clear
	dirtied    int64         // pages dirtied (clean→dirty transitions)
	written    int64         // pages whose writeback completed
	metaSince  sim.Time      // when I_DIRTY_SYNC|DATASYNC was set (for metadata age)
	metaDirty  bool
	stats      InodeStats
	visited    uint8       // bits of the lists the inode joined since TakeVisited
	dirtyMarks []dirtyMark // when stretches of the file were first dirtied
}

// dirtyMark says that pages from index on were first dirtied at (one mark per
// dirtyMarkPages at most, for append-only writers such as dd).
type dirtyMark struct {
	index int64
	at    sim.Time
}

// dirtyMarkPages is the spacing of dirty marks: 256 pages (1 MiB), so the oldest
// dirty page's age is known to within the time to dirty 1 MiB; 16 bytes per MiB.
const dirtyMarkPages = 256

// noteDirtied records that pages from index were dirtied at now (append-only: a page
// dirtied again below the last mark keeps the older mark, overstating its age).
func (in *Inode) noteDirtied(index int64, now sim.Time) {
	n := len(in.dirtyMarks)
	if n == 0 || index >= in.dirtyMarks[n-1].index+dirtyMarkPages {
		in.dirtyMarks = append(in.dirtyMarks, dirtyMark{index, now})
	}
}

// OldestDirtyDataAge is how long the inode's lowest-index dirty page (for a
// sequential writer, its oldest dirty data: what kupdate's expiry is meant to bound)
// has been dirty at now; 0 when no page is dirty. Unlike now - dirtied_when, it
// drops as writeback cleans the file even when the inode never becomes clean.
func (in *Inode) OldestDirtyDataAge(now sim.Time) sim.Time {
	r, ok := in.Dirty.Next(0)
	if !ok {
		return 0
	}
	i := sort.Search(len(in.dirtyMarks), func(i int) bool { return in.dirtyMarks[i].index > r.Start }) - 1
	if i < 0 {
		return 0
	}
	return now - in.dirtyMarks[i].at
}

// List bits (ListBit, TakeVisited).
const (
	OnBDirty uint8 = 1 << iota
	OnBIO
	OnBMoreIO
	OnBMoreIOWait
)

// ListBit is the bit of the writeback list the inode is on (0: none, clean).
func (in *Inode) ListBit() uint8 {
	if in.list == nil {
		return 0
	}
	return in.list.bit
}

// TakeVisited returns the bits of the lists the inode joined since the last call
// (moves between two samples), and clears them.
func (in *Inode) TakeVisited() uint8 {
	v := in.visited
	in.visited = 0
	return v
}

// InodeStats are per-inode writeback statistics.
type InodeStats struct {
	WritebackCalls int64    // writeback_single_inode calls by the flusher
	MaxAge         sim.Time // largest now - dirtied_when seen at writeback_single_inode
	SumAge         sim.Time
	MaxMetaAge     sim.Time // largest time inode metadata stayed dirty before write_inode succeeded
	WrotePages     int64    // pages the flusher's writeback_single_inode calls wrote
	MetaWrites     int64
}

// Stats returns the inode's writeback statistics.
func (in *Inode) Stats() InodeStats { return in.stats }

// Dirtied is the number of pages dirtied so far; Written the number written.
func (in *Inode) Dirtied() int64 { return in.dirtied }

// Written is the number of pages whose writeback completed.
func (in *Inode) Written() int64 { return in.written }

// MaxDirtyAge is the largest now - dirtied_when over dirty inodes, in jiffies.
func (k *Kernel) MaxDirtyAge() int64 {
	var age int64
	now := k.W.Jiffies()
	for _, in := range k.inodes {
		if in.State&IDirty != 0 {
			age = max(age, now-in.DirtiedWhen)
		}
	}
	return age
}

// OnList reports the name of the writeback list the inode is on ("" if none).
func (in *Inode) OnList() string {
	if in.list == nil {
		return ""
	}
	return in.list.name
}

// inodeList is a list_head of inodes linked through i_wb_list. Head is the most
// recently added end (list->next), tail the other end (list->prev).
type inodeList struct {
	name       string
	bit        uint8 // OnBDirty ... (0 for a temporary list)
	owner      *BDI  // the bdi_writeback the list belongs to
	head, tail *Inode
	n          int
}

// Len is the number of inodes on the list.
func (l *inodeList) Len() int { return l.n }

func (l *inodeList) remove(in *Inode) {
	if in.prev != nil {
		in.prev.next = in.next
	} else {
		l.head = in.next
	}
	if in.next != nil {
		in.next.prev = in.prev
	} else {
		l.tail = in.prev
	}
	in.prev, in.next, in.list = nil, nil, nil
	l.n--
}

// listDelInit takes the inode off whatever list it is on (list_del_init).
func listDelInit(in *Inode) {
	if in.list != nil {
		in.list.remove(in)
	}
}

// listMove moves the inode to the head of l (list_move).
func listMove(in *Inode, l *inodeList) {
	listDelInit(in)
	in.next = l.head
	if l.head != nil {
		l.head.prev = in
	} else {
		l.tail = in
	}
	l.head = in
	in.list = l
	in.visited |= l.bit
	l.n++
}

// listMoveTail moves the inode to the tail of l (list_move_tail).
func listMoveTail(in *Inode, l *inodeList) {
	listDelInit(in)
	in.prev = l.tail
	if l.tail != nil {
		l.tail.next = in
	} else {
		l.head = in
	}
	l.tail = in
	in.list = l
	in.visited |= l.bit
	l.n++
}

// listSpliceInit moves all of src to the head of dst, keeping src's order
// (list_splice_init).
func listSpliceInit(src, dst *inodeList) {
	if src.n == 0 {
		return
	}
	for in := src.head; in != nil; in = in.next {
		in.list = dst
		in.visited |= dst.bit
	}
	src.tail.next = dst.head
	if dst.head != nil {
		dst.head.prev = src.tail
	} else {
		dst.tail = src.tail
	}
	dst.head = src.head
	dst.n += src.n
	src.head, src.tail, src.n = nil, nil, 0
}

// InodeMetaDirtyAge is how long in's metadata has been dirty now (0 when clean).
func (k *Kernel) InodeMetaDirtyAge(in *Inode) sim.Time {
	if !in.metaDirty {
		return 0
	}
	return k.W.Now() - in.metaSince
}

// BDI is the bdi of the disk the file lives on.
func (in *Inode) BDI() *BDI { return in.bdi }
