package wire

// SweepPlan asks for the runs of a sweep (harness.SweepConfigs): every dirty
// threshold and dd count of the sweep, on the given filesystems (all the sweep's
// when empty), each on the machine of the state's form (kernel, switches, device,
// block layer, run length, seed), Seeds seeds each (seed, seed+1, ...; 0 or 1: one).
type SweepPlan struct {
	State       State
	Filesystems []string
	Seeds       int
}

// SweepPlanned is the sweep's runs, filesystem-major, then threshold, then dd, then
// seed, or the form's first bad input.
type SweepPlanned struct {
	Filesystems  []string
	ThresholdsMB []int64
	Writers      []int
	Kernel       string
	Device       string
	RuntimeS     float64
	Seeds        int // runs per cell
	Runs         []SweepRun
	Err          *FieldError
}

// SweepRun is one run of a sweep's cell and the config that runs it.
type SweepRun struct {
	FS       string
	ThreshMB int64
	DD       int
	Seed     int    // the run's seed index in its cell (its config's seed is the form's + Seed)
	Config   string // the Config JSON
}
