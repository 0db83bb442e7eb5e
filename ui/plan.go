package ui

// askPlan asks the engine a planning question (kind, q) on a goroutine of its own,
// as the matrix and the sweep do before they start their runs: *planning is true
// while the question is out; then runs with the event lock held and the answer in
// resp, unless a newer Run or a Cancel came in between (then the answer is dropped).
func (c *Root) askPlan(kind string, q, resp any, planning *bool, then func(err error)) {
	gen := c.runGen
	*planning = true
	go func() {
		err := Ask(kind, q, resp)
		c.ee.Lock()
		defer c.ee.UnlockRender()
		if gen != c.runGen {
			return
		}
		*planning = false
		then(err)
	}()
}
