package report

// Detail is the per-inode and per-task record of a run with Config.Detail (the
// page's per-task and per-inode views): one value per series row, for at most
// MaxDetailInodes inodes and MaxDetailTasks tasks, so its size is bounded by
// MaxSamples × (inodes + tasks).
type Detail struct {
	TimeS  []float64     `json:"time_s"`
	Inodes []InodeDetail `json:"inodes"`
	Tasks  []TaskDetail  `json:"tasks"`
	// MoreInodes and MoreTasks count those left out (the lowest inode numbers and
	// the first tasks are kept).
	MoreInodes int `json:"more_inodes,omitempty"`
	MoreTasks  int `json:"more_tasks,omitempty"`
}

// InodeDetail is one inode over time.
type InodeDetail struct {
	Ino uint64 `json:"ino"`
	// Lists has one letter per row: the writeback list the inode is on at the row,
	// d b_dirty, i b_io, m b_more_io, w b_more_io_wait, - none (clean or being
	// written with nothing left dirty).
	Lists string `json:"lists"`
	// Visited has one hex digit per row: the lists the inode joined since the last
	// row (bits 1 b_dirty, 2 b_io, 4 b_more_io, 8 b_more_io_wait), so short stays
	// between rows show.
	Visited string `json:"visited"`
	// DirtyMB are its dirty pages; WrotePerCall the pages per flusher
	// writeback_single_inode call in the row's interval (0: no call); DataAgeS the
	// age of its oldest dirty page (Inode.OldestDirtyDataAge).
	DirtyMB      []float64 `json:"dirty_MB"`
	WrotePerCall []float64 `json:"wrote_per_call_pages"`
	DataAgeS     []float64 `json:"data_age_s"`
}

// TaskDetail is one writer over time: its dirtying rate per row and its pauses by
// length (kernel.ThreadStats.PauseHist buckets: < 1 ms, 1-2 ms, ..., >= 512 ms).
type TaskDetail struct {
	PID       int       `json:"pid"`
	Comm      string    `json:"comm"`
	RateMBps  []float64 `json:"rate_MBps"`
	PauseHist []int64   `json:"pause_hist"`
}
