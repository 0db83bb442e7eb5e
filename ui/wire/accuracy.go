package wire

// AccuracyAsk asks how right the 6.1 preset's figures of a config's run are (kind
// "accuracy"): the accuracy table computed from the harness 2 QEMU references
// (validate.Accuracy) and the notes for the run's cards.
type AccuracyAsk struct{ Config string }

// AccuracyNotes is the answer: one DiskAccuracy per disk of the config, in its
// order (none for a kernel the references did not measure), and the whole table.
type AccuracyNotes struct {
	Kernel string // the preset the references measure ("6.1")
	Disks  []DiskAccuracy
	Rows   []AccuracyRow
}

// DiskAccuracy are a disk card's notes: "real 6.1 within ±X % in N QEMU
// references", "no QEMU reference covers this", or "" (no such figure: no dd, no
// editor on the disk).
type DiskAccuracy struct {
	WriteRate, BdiThresh, Writer, EditorP50, EditorP99 string
}

// AccuracyRow is one kind of figure of the table: how many figures of how many
// held QEMU runs, the mean and largest |error| in percent, and how many are within
// the target (TargetPct 0: none).
type AccuracyRow struct {
	Kind                  string
	Figures, Runs         int
	MeanErrPct, MaxErrPct float64
	TargetPct             float64
	WithinTarget          int
	Note                  string
}

// NoCover is a DiskAccuracy note where no held reference covers the figure
// (validate.NoCoverNote; lab's test keeps them equal).
const NoCover = "no QEMU reference covers this"
