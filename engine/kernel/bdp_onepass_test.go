package kernel

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine/sim"
)

// bdpInputs draws balance_dirty_pages inputs around a dirty threshold thresh.
type bdpInputs struct {
	thresh, bg, dirty, bdiThresh, bdiDirty, limit, bw, ratelimit int64
}

func drawBdpInputs(r *rand.Rand, thresh int64) bdpInputs {
	span := func(n int64) int64 { return r.Int64N(max(n, 1)) }
	in := bdpInputs{thresh: thresh + span(2)} // odd and even thresholds
	in.bg = span(in.thresh)
	in.limit = in.thresh + span(in.thresh/4+2)*span(2)
	in.dirty = span(2*in.limit + 2)
	in.bdiThresh = span(in.thresh + 1)
	in.bdiDirty = span(2*in.thresh + 2)
	in.bw = 1 + span(1<<20)
	in.ratelimit = 1 + span(1<<20)
	return in
}

// TestPositionRatiosIsPositionRatio: the one-pass positionRatios gives the numbers
// of positionRatio without and with v6, and bdiPositionRatio counts where they
// differ, for thresholds from a few pages to millions.
func TestPositionRatiosIsPositionRatio(t *testing.T) {
	tests := []struct {
		name   string
		thresh int64
		strict bool
		clamp  bool // Variants.On(swPosRatioClamp): bdiPositionRatio returns v6's
	}{
		{"tiny threshold", 6, false, false},
		{"100M", 25600, false, false},
		{"100M, v6", 25600, false, true},
		{"1G", 262144, false, false},
		{"16G", 4 << 20, false, false},
		{"strictlimit", 25600, true, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := newTestKernel(t, func(p *Params) { p.Variants.Set(swPosRatioClamp, tc.clamp) })
			b := k.BDI
			b.Knobs.StrictLimit = tc.strict
			r := rand.New(rand.NewPCG(uint64(i), 7))
			differ := int64(0)
			var prev bdpInputs
			for range 20000 {
				in := drawBdpInputs(r, tc.thresh)
				k.globalDirtyLimit = in.limit
				b.AvgWriteBandwidth = in.bw
				if r.IntN(2) == 0 {
					// the same threshold and bdi share as the previous draw (the
					// share kept in k.posShare is reused), another dirty count
					in.thresh, in.bdiThresh = prev.thresh, prev.bdiThresh
					in.dirty = in.thresh - r.Int64N(in.thresh/16+1)
				}
				prev = in
				want32 := k.positionRatio(b, in.thresh, in.bg, in.dirty, in.bdiThresh, in.bdiDirty, false)
				want6 := k.positionRatio(b, in.thresh, in.bg, in.dirty, in.bdiThresh, in.bdiDirty, true)
				p32, p6 := k.positionRatios(b, in.thresh, in.bg, in.dirty, in.bdiThresh, in.bdiDirty)
				require.Equal(t, [2]int64{want32, want6}, [2]int64{p32, p6}, "%+v", in)
				before := k.act.n[pathPosRatioDiffers]
				want := want32
				if tc.clamp {
					want = want6
				}
				require.Equal(t, want, k.bdiPositionRatio(b, in.thresh, in.bg, in.dirty, in.bdiThresh, in.bdiDirty))
				if want32 != want6 {
					differ++
					require.Equal(t, before+1, k.act.n[pathPosRatioDiffers])
				} else {
					require.Equal(t, before, k.act.n[pathPosRatioDiffers])
				}
			}
			if !tc.strict {
				require.Positive(t, differ, "the draws reach inputs where v6 differs")
			}
		})
	}
}

// TestMaxPausesIsMaxPause: bdiMaxPause returns maxPause of the configured variant
// and counts the calls where the other one differs, with its divisors computed
// anew or kept from the previous call, below and above the caps.
func TestMaxPausesIsMaxPause(t *testing.T) {
	for _, hz := range []int{100, 250, 1000} {
		for _, v6 := range []bool{false, true} {
			k, _ := newTestKernel(t, func(p *Params) { p.Variants.Set(swWbMaxPause, v6) })
			k.W = sim.NewWorld(hz, 1)
			b := k.BDI
			r := rand.New(rand.NewPCG(uint64(hz), 3))
			for range 20000 {
				in := drawBdpInputs(r, 1+r.Int64N(1<<22))
				b.AvgWriteBandwidth, b.DirtyRatelimit = in.bw, in.ratelimit
				// several bdi_dirty per bandwidth: the divisors kept on b are reused
				for _, bdiDirty := range []int64{in.bdiDirty, r.Int64N(1 << 24), r.Int64N(1 << 12), 0} {
					want := k.maxPause(b, bdiDirty, v6)
					other := k.maxPause(b, bdiDirty, !v6)
					before := k.act.n[pathMaxPauseDiffers]
					require.Equal(t, want, k.bdiMaxPause(b, bdiDirty), "hz %d v6 %v bdi_dirty %d %+v", hz, v6, bdiDirty, in)
					if want != other {
						before++
					}
					require.Equal(t, before, k.act.n[pathMaxPauseDiffers])
				}
			}
		}
	}
}

// TestPauseBucketIsTheDoublingCount: pauseBucket counts the 1, 2, 4, ... ms steps
// a pause reaches as notePause's float loop did, at the steps' edges and between.
func TestPauseBucketIsTheDoublingCount(t *testing.T) {
	loop := func(d sim.Time) int {
		b, ms := 0, float64(d)/1e6
		for lim := 1.0; ms >= lim && b < PauseBuckets-1; lim *= 2 {
			b++
		}
		return b
	}
	ds := []sim.Time{-1, 0, 1, 999_999, 1_000_000, 1_000_001, 1 << 40}
	for i := range 12 {
		edge := sim.Time(1<<i) * sim.Millisecond
		ds = append(ds, edge-1, edge, edge+1, 3*edge/2)
	}
	r := rand.New(rand.NewPCG(5, 5))
	for range 10000 {
		ds = append(ds, sim.Time(r.Int64N(int64(2*sim.Second))))
	}
	for _, d := range ds {
		require.Equal(t, loop(d), pauseBucket(d), "d=%d", d)
	}
}

// TestDirtyLimitsMemoFollowsInputs: the thresholds kept in k.dlMemo are
// limitsFrom's for the current dirtyable memory and sysctls, after any of them
// changes, and globalDirtyLimits counts the calls where the two conversions differ.
func TestDirtyLimitsMemoFollowsInputs(t *testing.T) {
	k, _ := newTestKernel(t, nil)
	edits := []struct {
		name string
		edit func(k *Kernel)
	}{
		{"bytes", func(k *Kernel) {}},
		{"ratio", func(k *Kernel) { k.P.DirtyBytes, k.P.DirtyRatio = 0, 20 }},
		{"background bytes", func(k *Kernel) { k.P.DirtyBackgroundBytes = 50 << 20 }},
		{"background ratio", func(k *Kernel) { k.P.DirtyBackgroundBytes, k.P.DirtyBackgroundRatio = 0, 7 }},
		{"odd memory", func(k *Kernel) { k.dirtyableMem = 1_000_003 }},
		{"other ratio", func(k *Kernel) { k.P.DirtyRatio = 33 }},
		{"domain", func(k *Kernel) { k.P.Variants.Set(swDomainDirtyLimits, true) }},
		{"background above dirty", func(k *Kernel) { k.P.DirtyBackgroundRatio = 40 }},
	}
	for _, e := range edits {
		e.edit(k)
		for _, domain := range []bool{false, true} {
			wantBg, wantDirty := k.limitsFrom(k.dirtyableMem, domain)
			bg, dirty := k.dirtyLimitsWith(domain)
			require.Equal(t, [2]int64{wantBg, wantDirty}, [2]int64{bg, dirty}, "%s domain=%v", e.name, domain)
		}
		before := k.act.n[pathDomainLimitsDiffer]
		bg, dirty := k.globalDirtyLimits(nil)
		require.Equal(t, [2]int64{bg, dirty}, func() [2]int64 { b, d := k.dirtyLimits(); return [2]int64{b, d} }(), e.name)
		b32, d32 := k.limitsFrom(k.dirtyableMem, false)
		b6, d6 := k.limitsFrom(k.dirtyableMem, true)
		if b32 != b6 || d32 != d6 {
			before++
		}
		require.Equal(t, before, k.act.n[pathDomainLimitsDiffer], e.name)
	}
}
