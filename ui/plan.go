package ui

// askPlan asks the engine a planning question (kind, q) on a goroutine of its own,
// as the matrix and the sweep do before they start their runs: *planning is true
// while the question is out; then runs with the event lock held and the answer in
// resp, unless a newer Run or a Cancel came in between (then the answer is dropped),
// and renders the page in a task after it.
func (c *Root) askPlan(kind string, q, resp any, planning *bool, then func(err error)) {
	gen := c.runGen
	*planning = true
	go func() {
		err := Ask(kind, q, resp)
		c.ee.Lock()
		defer c.ee.UnlockOnly()
		if gen != c.runGen {
			return
		}
		*planning = false
		then(err)
		// the render that shows the new table runs in a task of its own: this one
		// decoded the plan and posted the runs (one main-thread task for both
		// was 160-290 ms of the T1 matrix's start, PERFORMANCE.md Round 8)
		c.w.renderAfter(MinRenderPause)
	}()
}
