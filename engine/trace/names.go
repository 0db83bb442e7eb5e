package trace

import "strconv"

// Format selects the kernel whose tracepoint wording is printed.
type Format uint8

// Tracepoint wordings. V32 is the zero value and the one the harness's column maps
// expect (kernel-notes §6.2); V66 is Linux 6.6 (§6.3).
const (
	V32 Format = iota // Linux v3.2 include/trace/events/writeback.h
	V66               // Linux v6.6: cgroup_ino suffixes, no unstable=, vmscan reason ...
)

func (f Format) String() string {
	switch f {
	case V32:
		return "v3.2"
	case V66:
		return "v6.6"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// Reason is the kernel's enum wb_reason: why a writeback work item was queued. The
// values are v3.2's WB_REASON_* numbers; ReasonForeignFlush exists only since v4.x.
type Reason uint8

// Writeback reasons (kernel-notes §1.1).
const (
	ReasonBackground     Reason = iota // "background"
	ReasonTryToFreePages               // v3.2 "try_to_free_pages"; v6.6 WB_REASON_VMSCAN "vmscan"
	ReasonSync                         // "sync"
	ReasonPeriodic                     // "periodic" (kupdate)
	ReasonLaptopTimer                  // "laptop_timer"
	ReasonFreeMoreMem                  // "free_more_memory" (v3.2 only)
	ReasonFsFreeSpace                  // "fs_free_space"
	ReasonForkerThread                 // "forker_thread"
	ReasonForeignFlush                 // "foreign_flush" (v6.6 only)

	ReasonVmscan = ReasonTryToFreePages // v6.6 name of the same reason
)

// String returns the v3.2 trace string (kernel-notes §1.1).
func (r Reason) String() string { return r.Text(V32) }

// Text returns the trace string the given kernel prints for r: only
// ReasonTryToFreePages differs ("vmscan" in v6.6). A reason one kernel lacks is still
// printed by its name; an out-of-range value prints as its number, as
// __print_symbolic does.
func (r Reason) Text(f Format) string {
	if r == ReasonTryToFreePages && f == V66 {
		return "vmscan"
	}
	switch r {
	case ReasonBackground:
		return "background"
	case ReasonTryToFreePages:
		return "try_to_free_pages"
	case ReasonSync:
		return "sync"
	case ReasonPeriodic:
		return "periodic"
	case ReasonLaptopTimer:
		return "laptop_timer"
	case ReasonFreeMoreMem:
		return "free_more_memory"
	case ReasonFsFreeSpace:
		return "fs_free_space"
	case ReasonForkerThread:
		return "forker_thread"
	case ReasonForeignFlush:
		return "foreign_flush"
	}
	return "0x" + strconv.FormatUint(uint64(r), 16)
}

// InodeState is an inode's i_state bit set as the kernel stores it (unsigned long).
type InodeState uint64

// i_state bits with their kernel values (include/linux/fs.h; v3.2 for all but
// IDirtyTime, which is v4.0+ and printed only by the V66 wording).
const (
	IDirtySync     InodeState = 1 << 0  // I_DIRTY_SYNC
	IDirtyDatasync InodeState = 1 << 1  // I_DIRTY_DATASYNC
	IDirtyPages    InodeState = 1 << 2  // I_DIRTY_PAGES
	INew           InodeState = 1 << 3  // I_NEW (__I_NEW = 3)
	IWillFree      InodeState = 1 << 4  // I_WILL_FREE
	IFreeing       InodeState = 1 << 5  // I_FREEING
	IClear         InodeState = 1 << 6  // I_CLEAR
	ISync          InodeState = 1 << 7  // I_SYNC (__I_SYNC = 7)
	IReferenced    InodeState = 1 << 8  // I_REFERENCED
	IDirtyTime     InodeState = 1 << 11 // I_DIRTY_TIME (v4.0+)

	IDirty = IDirtySync | IDirtyDatasync | IDirtyPages // I_DIRTY
)

// stateFlag returns entry i of the kernel's show_inode_state table (v6.6 order; the
// v3.2 table is the same without I_DIRTY_TIME). It is a switch rather than a table
// so that the package holds no mutable state.
func stateFlag(i int) (InodeState, string) {
	switch i {
	case 0:
		return IDirtySync, "I_DIRTY_SYNC"
	case 1:
		return IDirtyDatasync, "I_DIRTY_DATASYNC"
	case 2:
		return IDirtyPages, "I_DIRTY_PAGES"
	case 3:
		return INew, "I_NEW"
	case 4:
		return IWillFree, "I_WILL_FREE"
	case 5:
		return IFreeing, "I_FREEING"
	case 6:
		return IClear, "I_CLEAR"
	case 7:
		return ISync, "I_SYNC"
	case 8:
		return IDirtyTime, "I_DIRTY_TIME"
	case 9:
		return IReferenced, "I_REFERENCED"
	}
	return 0, ""
}

const nStateFlags = 10

// String renders s as v3.2's show_inode_state does.
func (s InodeState) String() string { return s.Text(V32) }

// Text renders s as the given kernel's show_inode_state (__print_flags with "|"):
// known bits by name in table order, then any left-over bits as one "0x%lx"; no bits
// at all render as the empty string (so "state= dirtied_when=..."), not "0".
func (s InodeState) Text(f Format) string {
	var buf [160]byte
	return string(appendState(buf[:0], s, f))
}

func appendState(dst []byte, s InodeState, f Format) []byte {
	first := true
	for i := 0; i < nStateFlags && s != 0; i++ {
		mask, name := stateFlag(i)
		if mask == IDirtyTime && f != V66 {
			continue
		}
		if s&mask != mask {
			continue
		}
		s &^= mask
		if !first {
			dst = append(dst, '|')
		}
		first = false
		dst = append(dst, name...)
	}
	if s != 0 {
		if !first {
			dst = append(dst, '|')
		}
		dst = append(dst, "0x"...)
		dst = strconv.AppendUint(dst, uint64(s), 16)
	}
	return dst
}
