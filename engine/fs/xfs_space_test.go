package fs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// TestLayoutWindowSkipsHolesAndStopsAtTheEnd: a window that reaches a hole ends at
// its start, the next starts past it; one that reaches the device's end shrinks.
func TestLayoutWindowSkipsHolesAndStopsAtTheEnd(t *testing.T) {
	for _, c := range []struct {
		name           string
		frontier, want int64
		start, end     int64
		holes          []Hole
		endSector      int64
	}{
		{"free run", 100, 50, 100, 150, []Hole{{200, 300}}, 1000},
		{"ends at a hole", 180, 50, 180, 200, []Hole{{200, 300}}, 1000},
		{"starts past a hole", 250, 50, 300, 350, []Hole{{200, 300}}, 1000},
		{"shrinks at the end", 980, 50, 980, 1000, nil, 1000},
		{"unbounded", 980, 50, 980, 1030, nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := Layout{EndSector: c.endSector, Holes: c.holes, frontier: c.frontier}
			s, e := l.window(c.want)
			assert.Equal(t, c.start, s)
			assert.Equal(t, c.end, e)
		})
	}
}

// TestXfsReservationsStayInsideTheDevice runs 10 dd writers on XFS (allocsize 1 GiB)
// on devices of several sizes: every extent lies inside the device and off the
// log; where the ten 1 GiB preallocations do not fit in the free blocks, the last
// files' reservations fail (ENOSPC, a flush, then a reservation without
// preallocation) and the free-block counter is never overdrawn.
func TestXfsReservationsStayInsideTheDevice(t *testing.T) {
	for _, c := range []struct {
		name     string
		capacity int64
		enospc   bool
	}{
		{"64 GiB: every window fits", 64 << 30, false},
		{"8 GiB: the last files have no window", 8 << 30, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := sim.NewWorld(1000, 1)
			spec, err := devices.Preset("simple")
			require.NoError(t, err)
			spec.CapacityBytes = c.capacity
			q, err := devices.New(w, spec, devices.LegacyBlock(spec, 512))
			require.NoError(t, err)
			x := NewXfs()
			p := kernel.Params{CPUs: 8, MemoryMB: 4096, Sysctls: kernel.Sysctls{DirtyBytes: 100 << 20, DirtyBackgroundRatio: 10,
				DirtyExpireCs: 3000, DirtyWritebackCs: 500}, Costs: kernel.DefaultCosts(),
				Variants: kernel.Variants{}.With(kernel.SwWCPTerminateLE0, ksw("scaled_chunk"), swXFSWriteInodeFlush)}
			k, err := kernel.New(w, p)
			require.NoError(t, err)
			_, err = k.AddDisk("8:0", q, x, kernel.DefaultBdiKnobs())
			require.NoError(t, err)
			runDD(t, w, k, 10, 20*sim.Second, true) // invariants, bio-inside-device included
			l := &x.P.Layout
			require.Equal(t, c.capacity/devices.SectorSize, l.EndSector)
			assert.Equal(t, c.enospc, x.Enospc > 0, "ENOSPC on preallocation: %d", x.Enospc)
			assert.Zero(t, x.NoSpaceWrites, "every write found room without preallocation")
			assert.GreaterOrEqual(t, x.FdBlocks(), int64(0))
			assert.LessOrEqual(t, l.Frontier(), l.EndSector)
			for _, in := range k.Inodes() {
				for _, e := range in.FS.(*xfsInode).m.ext {
					end := e.disk + e.n*devices.PageSectors
					assert.GreaterOrEqual(t, e.disk, l.StartSector)
					assert.LessOrEqual(t, end, l.EndSector, "inode %d extent inside the device", in.Ino)
					for _, h := range l.Holes {
						assert.True(t, end <= h.Start || e.disk >= h.End, "inode %d extent [%d, %d) off the log [%d, %d)", in.Ino, e.disk, end, h.Start, h.End)
					}
				}
			}
		})
	}
}
