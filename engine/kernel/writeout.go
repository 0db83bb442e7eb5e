package kernel

import (
	"fmt"
	"strings"
)

// This file is the per-bdi share of the dirty limit (mm/page-writeback.c): the
// writeout fraction each bdi earns by its writeback completions, and
// bdi_dirty_limit / __wb_calc_thresh with the bdi's min_ratio and max_ratio.
//
// Sources read: 2.6.2x/3.2 mm/page-writeback.c (__bdi_writeout_inc →
// __prop_inc_percpu_max on vm_completions, calc_period_shift, bdi_writeout_fraction,
// bdi_dirty_limit), v3.5+ (__bdi_writeout_inc → __fprop_inc_percpu_max on
// writeout_completions, the writeout_period timer every VM_COMPLETIONS_PERIOD_LEN),
// kernel-notes §2.3.

// swFpropCompletions is the v3.5+ writeout fraction (lib/flex_proportions:
// fprop_fraction_percpu on writeout_completions, halved every
// VM_COMPLETIONS_PERIOD_LEN = 3*HZ by the writeout_period timer); off: the
// 2.6.24-3.4 prop_local_percpu on vm_completions, halved every half-period of
// 2^calc_period_shift() completions. Only matters with several disks.
var swFpropCompletions = declare(Switch{Name: "fprop_completions", Order: 360,
	Doc:    "v3.5+: writeout fraction from flex proportions halved every 3 s (off: prop_local_percpu, 2.6.24-3.4)",
	Models: "__bdi_writeout_inc, bdi_writeout_fraction, writeout_period, mm/page-writeback.c v6.1; lib/flex_proportions.c",
	Source: notesV6})

var pathWriteoutSeveralBdis = swFpropCompletions.path("writeout_fraction.completions",
	"completions counted into a bdi's writeout fraction on a machine with several disks (one disk: the fraction is 1)")

// swStrictLimitCap is BDI_CAP_STRICTLIMIT support in balance_dirty_pages and
// wb_position_ratio (3.12+): a bdi with strictlimit set is throttled against
// its own limit, also below the global free-run ceiling.
var swStrictLimitCap = declare(Switch{Name: "strictlimit_cap", Order: 370,
	Doc:    "3.12+: BDI_CAP_STRICTLIMIT bdis are throttled against their own limit",
	Models: "balance_dirty_pages, wb_position_ratio (strictlimit branches), mm/page-writeback.c v6.1",
	Source: notesV6})

var pathBdpStrictLimit = swStrictLimitCap.path("balance_dirty_pages.strictlimit",
	"IO-less balance_dirty_pages calls on a BDI_CAP_STRICTLIMIT bdi")

// swBdiKnobsV62 is Linux 6.2's /sys/class/bdi knobs (Stefan Roesch's series,
// sysfs-class-bdi "Date: October 2022", in the MM pull for 6.2-rc1):
// strict_limit, min_bytes and max_bytes, and min/max ratios in parts per
// million. Off: only min_ratio and max_ratio, and strictlimit only on FUSE
// mounts. No preset has it. It was named bdi_knobs_v63 before.
var swBdiKnobsV62 = declare(Switch{Name: "bdi_knobs_v62", Aliases: []string{"bdi_knobs_v63"}, Order: 390,
	Doc:    "6.2+: /sys/class/bdi strict_limit, min_bytes and max_bytes (ratios in parts per million)",
	Models: "bdi_set_strict_limit, bdi_set_max_bytes, bdi_ratio_from_pages, mm/page-writeback.c v6.2",
	Source: "Stefan Roesch's bdi knob series (v6.2, mm-stable-2022-12-13)",
	Uncounted: "decides which bdi knobs the machine accepts and converts max_bytes/min_bytes once when it is built; " +
		"the knobs' effect is counted by their own paths (balance_dirty_pages.strictlimit, writeout_fraction.completions)"})

// BdiKnobs are a bdi's /sys/class/bdi/MAJ:MIN/ settings.
type BdiKnobs struct {
	// MinRatio is min_ratio (2.6.25+, percent; Peter Zijlstra's "allow setting a
	// minimum for the bdi dirty limit", posted 2008-01-29): a share of the dirty
	// limit the bdi keeps whatever its writeout fraction; the sum over bdis is at
	// most 100.
	MinRatio int `json:"min_ratio,omitempty"`
	// MaxRatio is max_ratio (2.6.25+, percent, default 100; "allow setting a
	// maximum for the bdi dirty limit", same series): the bdi's limit never exceeds
	// this share, and completions above it do not raise its fraction.
	MaxRatio int `json:"max_ratio"`
	// StrictLimit is BDI_CAP_STRICTLIMIT (commit 5a53748568f7, 3.12: set only by
	// FUSE for its mounts; user-settable as /sys/class/bdi/*/strict_limit from 6.2,
	// switch bdi_knobs_v62): the bdi is throttled against its own limit even while
	// the global dirty count is below the free-run ceiling.
	StrictLimit bool `json:"strictlimit,omitempty"`
	// MinBytes and MaxBytes are /sys/class/bdi/*/min_bytes and max_bytes (6.2+,
	// switch bdi_knobs_v62; 0: not set): bdi_set_min_bytes / bdi_set_max_bytes turn
	// them into min_ratio / max_ratio in parts per million of the dirty threshold
	// at the time they are written (bdi_ratio_from_pages).
	MinBytes int64 `json:"min_bytes,omitempty"`
	MaxBytes int64 `json:"max_bytes,omitempty"`
}

// DefaultBdiKnobs are a new bdi's knobs: min_ratio 0, max_ratio 100, no strictlimit.
func DefaultBdiKnobs() BdiKnobs { return BdiKnobs{MaxRatio: 100} }

// Validate checks the knobs' ranges and that the kernel has them, naming the field.
func (b BdiKnobs) Validate(v Variants) error {
	if b.MinRatio < 0 || b.MinRatio > 100 {
		return fmt.Errorf("bdi.min_ratio: %d %% out of range [0, 100]", b.MinRatio)
	}
	if b.MaxRatio < 1 || b.MaxRatio > 100 {
		return fmt.Errorf("bdi.max_ratio: %d %% out of range [1, 100]", b.MaxRatio)
	}
	if b.MinRatio > b.MaxRatio {
		// bdi_set_min_ratio: -EINVAL when min_ratio > max_ratio
		return fmt.Errorf("bdi.min_ratio: %d %% above max_ratio %d %% (the kernel refuses it)", b.MinRatio, b.MaxRatio)
	}
	if b.StrictLimit && (!v.On(swStrictLimitCap) || !v.On(swBdpThinkTime) || v.On(swIOFullThrottle)) {
		return fmt.Errorf("bdi.strictlimit: this kernel has no BDI_CAP_STRICTLIMIT (Linux 3.12+; of the presets, 6.1)")
	}
	if b.StrictLimit && !v.On(swBdiKnobsV62) {
		return fmt.Errorf("bdi.strictlimit: before Linux 6.2 only FUSE mounts get BDI_CAP_STRICTLIMIT (commit 5a53748568f7, 3.12); " +
			"the sysfs knob strict_limit is 6.2+ (set the variant bdi_knobs_v62 to model it)")
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"min_bytes", b.MinBytes}, {"max_bytes", b.MaxBytes}} {
		if f.v < 0 {
			return fmt.Errorf("bdi.%s: %d below 0", f.name, f.v)
		}
		if f.v > 0 && !v.On(swBdiKnobsV62) {
			return fmt.Errorf("bdi.%s: this kernel has no %s knob (Linux 6.2+, Stefan Roesch's series; "+
				"set the variant bdi_knobs_v62 to model it, or use %s)", f.name, f.name, strings.Replace(f.name, "bytes", "ratio", 1))
		}
	}
	return nil
}

// bdiRatioScale is BDI_RATIO_SCALE (6.2+): ratios in parts per million.
const bdiRatioScale = 10000

// setRatios sets b's min and max ratio in parts per million from its knobs:
// min_ratio/max_ratio, or (6.2+) bdi_set_min_bytes / bdi_set_max_bytes, which
// refuse more pages than global_dirtyable_memory (bdi_check_pages_limit) and take
// the ratio of the dirty threshold now (bdi_ratio_from_pages).
func (k *Kernel) setRatios(b *BDI) error {
	kn := b.Knobs
	b.minPPM, b.maxPPM = int64(kn.MinRatio)*bdiRatioScale, int64(kn.MaxRatio)*bdiRatioScale
	_, thresh := k.dirtyLimits()
	avail := k.dirtyableMem
	if k.mm != nil {
		avail = k.dirtyableReclaim()
	}
	fromBytes := func(field string, bytes int64) (int64, error) {
		pages := bytes >> PageShift
		if pages > avail {
			return 0, fmt.Errorf("bdi.%s: %d bytes above the dirtyable memory (%d MiB; the kernel refuses it)",
				field, bytes, avail>>(20-PageShift))
		}
		r := pages * 100 * bdiRatioScale / max(thresh, 1)
		if r > 100*bdiRatioScale {
			return 0, fmt.Errorf("bdi.%s: %d bytes is %d %% of the dirty threshold (%d MiB), above 100 %% (the kernel refuses it)",
				field, bytes, r/bdiRatioScale, thresh>>(20-PageShift))
		}
		return r, nil
	}
	if kn.MaxBytes > 0 {
		r, err := fromBytes("max_bytes", kn.MaxBytes)
		if err != nil {
			return err
		}
		b.maxPPM = max(r, 1)
	}
	if kn.MinBytes > 0 {
		r, err := fromBytes("min_bytes", kn.MinBytes)
		if err != nil {
			return err
		}
		b.minPPM = r
	}
	if b.minPPM > b.maxPPM {
		return fmt.Errorf("bdi.min_bytes: its share of the dirty threshold is above max's (the kernel refuses it)")
	}
	return nil
}

// propLocal is a bdi's completion count: prop_local_percpu (lib/proportions.c,
// 2.6.24-3.4) or fprop_local_percpu (lib/flex_proportions.c, 3.5+). Per-CPU
// counter batching is not modelled (exact sums).
type propLocal struct{ events, period int64 }

// propGlobal is vm_completions (prop_descriptor) or writeout_completions
// (fprop_global): the global event count, and for fprop its period number and the
// writeout_period timer's next expiry.
type propGlobal struct {
	events     int64
	period     int64 // fprop: periods elapsed
	periodTime int64 // fprop: writeout_period_time, jiffies (0 = timer off)
}

// completionsShift is calc_period_shift (2.6.24-3.4): 2 + ilog2(dirty_total - 1),
// so that period/2 ≈ the dirty limit in pages.
func (k *Kernel) completionsShift() int64 { return k.vmDirtiesShift() }

// propNormPercpu is prop_norm_percpu (lib/proportions.c): the bdi's count is halved
// once for every half-period of global completions it missed.
func (k *Kernel) propNormPercpu(pl *propLocal) { pl.norm(k.completions.events, k.completionsShift()) }

// norm is the normalisation prop_norm_percpu and prop_norm_single share: the local
// count is halved once for every half-period (2^(shift-1) global events) it missed.
func (pl *propLocal) norm(globalEvents, shift int64) {
	globalPeriod := globalEvents &^ (1<<(shift-1) - 1)
	if pl.period == globalPeriod {
		return
	}
	if missed := (globalPeriod - pl.period) >> (shift - 1); missed < 63 {
		pl.events >>= missed
	} else {
		pl.events = 0
	}
	pl.period = globalPeriod
}

// fpropReflectPeriod is fprop_reflect_period_percpu (lib/flex_proportions.c): the
// bdi's count is halved for each global period it has not seen.
func (k *Kernel) fpropReflectPeriod(pl *propLocal) {
	g := &k.completions
	if pl.period == g.period {
		return
	}
	if d := g.period - pl.period; d < 63 {
		pl.events >>= d
	} else {
		pl.events = 0
	}
	pl.period = g.period
}

// writeoutFraction is bdi_writeout_fraction (v3.2: prop_fraction_percpu; v3.5+:
// fprop_fraction_percpu): the bdi's share of recent completions. With one bdi the
// share is taken as exactly 1 (the single-disk model: every completion is its own).
func (k *Kernel) writeoutFraction(b *BDI) (num, den int64) {
	if len(k.bdis) == 1 { // inlined: no call with one disk
		return 1, 1
	}
	return k.writeoutShare(b)
}

// writeoutShare is writeoutFraction with several bdis.
func (k *Kernel) writeoutShare(b *BDI) (num, den int64) {
	pl := &b.completions
	if k.on(swFpropCompletions) {
		k.fpropReflectPeriod(pl)
		den = max(k.completions.events, 1)
		return min(max(pl.events, 0), den), den
	}
	k.propNormPercpu(pl)
	shift := k.completionsShift()
	half := int64(1) << (shift - 1)
	return max(pl.events, 0), half + k.completions.events&(half-1)
}

// fracBase is PROP_FRAC_BASE / FPROP_FRAC_BASE as the model uses it for
// max_prop_frac (max_ratio as a fixed-point fraction).
const fracShift = 10

// bdiWriteoutInc is __bdi_writeout_inc for n completed pages (v3.2:
// __prop_inc_percpu_max(&vm_completions, ..., max_prop_frac); v3.5+:
// __fprop_inc_percpu_max on writeout_completions, arming the writeout_period
// timer on the first event after it stopped). A bdi at its max_ratio share does not
// count further completions.
func (k *Kernel) bdiWriteoutInc(b *BDI, n int64) {
	if len(k.bdis) == 1 || n <= 0 {
		return // the fraction is 1 (writeoutFraction); nothing reads the counts
	}
	k.Fired(pathWriteoutSeveralBdis)
	maxFrac := b.maxPPM << fracShift / (100 * bdiRatioScale)
	g := &k.completions
	if k.on(swFpropCompletions) {
		k.fpropReflectPeriod(&b.completions)
		if maxFrac < 1<<fracShift {
			num, den := b.completions.events, max(g.events, 1)
			// adding n must not lift the share above max_frac
			tmp := den*maxFrac - num<<fracShift
			if tmp < 0 {
				return
			}
			if tmp < n*(1<<fracShift-maxFrac) {
				n = (tmp + 1<<fracShift - maxFrac - 1) / (1<<fracShift - maxFrac)
			}
		}
		b.completions.events += n
		g.events += n
		if g.periodTime == 0 {
			g.periodTime = k.W.Jiffies() + k.vmCompletionsPeriodLen()
			k.W.At(&k.writeoutPeriodTimer, k.W.JiffiesToTime(g.periodTime))
		}
		return
	}
	// prop_local_percpu: one event per page; the normalisation runs where
	// per-page calls would see a half-period boundary.
	shift := k.completionsShift()
	half := int64(1) << (shift - 1)
	for n > 0 {
		k.propNormPercpu(&b.completions)
		if maxFrac < 1<<fracShift {
			num, den := k.writeoutFraction(b)
			if num > den*maxFrac>>fracShift {
				return
			}
		}
		c := min(n, half-g.events&(half-1))
		if maxFrac < 1<<fracShift {
			c = 1 // the share moves with every event near the cap
		}
		b.completions.events += c
		g.events += c
		n -= c
	}
}

// vmCompletionsPeriodLen is VM_COMPLETIONS_PERIOD_LEN = 3*HZ (v3.5+).
func (k *Kernel) vmCompletionsPeriodLen() int64 { return 3 * k.W.HZ() }

// writeoutPeriod is the writeout_period timer (v3.5+): start as many new periods
// as have passed (fprop_new_period halves the global count per period); the timer
// stops when there were no events (fprop_new_period returns false).
func (k *Kernel) writeoutPeriod() {
	g := &k.completions
	plen := k.vmCompletionsPeriodLen()
	miss := (k.W.Jiffies() - g.periodTime) / plen
	if k.fpropNewPeriod(miss + 1) {
		g.periodTime += (miss + 1) * plen
		k.W.At(&k.writeoutPeriodTimer, k.W.JiffiesToTime(g.periodTime))
		return
	}
	g.periodTime = 0
}

// fpropNewPeriod is fprop_new_period (lib/flex_proportions.c): with at most one
// event nothing decays; otherwise the global count loses half per period.
func (k *Kernel) fpropNewPeriod(periods int64) bool {
	g := &k.completions
	if g.events <= 1 {
		return false
	}
	if periods < 63 {
		g.events -= g.events - g.events>>periods
	} else {
		g.events = 0
	}
	g.period += periods
	return true
}

// bdiMinRatioSum is the global bdi_min_ratio: the sum of every bdi's min_ratio,
// in parts per million.
func (k *Kernel) bdiMinRatioSum() int64 {
	s := int64(0)
	for _, b := range k.bdis {
		s += b.minPPM
	}
	return s
}

// bdiDirtyLimit is bdi_dirty_limit (v3.2) / __wb_calc_thresh (v6.1): the global
// limit less every bdi's reserved min_ratio, times this bdi's writeout fraction,
// plus its own min_ratio share, at most its max_ratio share.
func (k *Kernel) bdiDirtyLimit(b *BDI, dirty int64) int64 {
	num, den := k.writeoutFraction(b)
	const full = 100 * bdiRatioScale
	t := dirty * (full - k.bdiMinRatioSum()) / full
	if den == 1 {
		t *= num // one bdi: the fraction is 1/1 (no division)
	} else {
		t = t * num / den
	}
	t += dirty * b.minPPM / full
	return min(t, dirty*b.maxPPM/full)
}

// BdiThresh is the bdi's share of the dirty limit now (bdi_dirty_limit of
// global_dirty_limits' thresh), in pages, for series and tests.
func (k *Kernel) BdiThresh(b *BDI) int64 {
	_, thresh := k.dirtyLimits()
	return k.bdiDirtyLimit(b, thresh)
}
