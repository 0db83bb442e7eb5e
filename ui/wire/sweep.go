package wire

// SweepPlan asks for the runs of a sweep (harness.SweepConfigs): every dirty
// threshold and dd count of the sweep, on the given filesystems (all the sweep's
// when empty), each on the machine of the state's form (kernel, switches, device,
// block layer, run length, seed).
type SweepPlan struct {
	State       State
	Filesystems []string
}

// SweepPlanned is the sweep's runs, filesystem-major, then threshold, then dd, or
// the form's first bad input.
type SweepPlanned struct {
	Filesystems  []string
	ThresholdsMB []int64
	Writers      []int
	Kernel       string
	Device       string
	RuntimeS     float64
	Runs         []SweepRun
	Err          *FieldError
}

// SweepRun is one cell of a sweep and the config that runs it.
type SweepRun struct {
	FS       string
	ThreshMB int64
	DD       int
	Config   string // the Config JSON
}
