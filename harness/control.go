package harness

import (
	"context"
	"fmt"
	"math"
)

// ControlSeedOffset is how far a control's second run's seeds are from the first's.
const ControlSeedOffset = 1000

// Control runs kernel against itself on cases: the same kernel twice, the second
// time with seeds ControlSeedOffset further on. Its deltas are the run-to-run
// spread of the machine variation, which a kernel pair's delta must exceed to
// count (the brief: a difference counts only beyond the seed spread).
func Control(ctx context.Context, kernel string, cases []string, opt CompareOptions) (*Comparison, error) {
	opt.TestSeedOffset = ControlSeedOffset
	return Compare(ctx, kernel, kernel, cases, opt)
}

// MinThreadDeltaPct is the thread delta from which a kernel pair must differ
// at all in a case.
const MinThreadDeltaPct = 3.0

// NotFired lists the rows of a kernel pair's comparison where both kernels gave
// exactly the same write_bw although the thread's delta is at least
// MinThreadDeltaPct: the difference between the kernels never reached the result.
// why names, by case, the reason the path cannot fire in the model (such a row
// is left out); every other such row is an error a fidelity test reports.
func NotFired(c *Comparison, why map[string]string) []error {
	var out []error
	for _, r := range c.Rows {
		if math.Abs(r.ThreadDeltaPct) < MinThreadDeltaPct || r.BaseMBps != r.TestMBps || r.Base.Min != r.Test.Min || r.Base.Max != r.Test.Max {
			continue
		}
		if why[r.Case] != "" {
			continue
		}
		out = append(out, fmt.Errorf("%s: %s and %s give identical write_bw %.2f MB/s, thread delta %+.1f%% (name why the path cannot fire)",
			r.Case, c.Base, c.Test, r.BaseMBps, r.ThreadDeltaPct))
	}
	return out
}

// BeyondControl reports whether a row's delta exceeds the control's spread for
// the same case: |delta| larger than the control's |delta| plus both 95 % CIs.
func BeyondControl(r, control CompareRow) bool {
	return math.Abs(r.DeltaPct) > math.Abs(control.DeltaPct)+r.Delta.CI95+control.Delta.CI95
}
