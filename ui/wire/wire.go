// Package wire is what the page's UI (package ui, main.wasm) and its engine worker
// (package lab inside worker.wasm) exchange: the form and URL state the UI holds, the
// catalog of the engine's registries the worker sends once at startup, and the
// answers to the UI's questions (is this form valid, what does this link or case name
// set, which configs does this matrix run). It imports no model code, so the UI
// module does not link the simulator; every answer is computed by the worker from
// the engine's one table per registry.
package wire

import "github.com/wblab/wblab/engine/report"

// Form holds every control's text by field ID, so bad input can be shown as typed.
type Form map[string]string

// Clone copies the form.
func (f Form) Clone() Form {
	out := make(Form, len(f))
	for k, v := range f {
		out[k] = v
	}
	return out
}

// FieldError is an input error shown next to its field.
type FieldError struct {
	Field, Msg string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Field is one form control. ID is also its URL hash key.
type Field struct {
	ID, Label, Kind, Help string // Kind: text, select, bool, tri (preset/on/off)
	Group                 string
}

// State is what the URL hash carries: the form (A), the mode and B's kernel choice.
type State struct {
	Form  Form
	Mode  string // "", "ab" or "matrix"
	B     Form   // B's kernel and switches ("kernel", "v.*"); nil when unset
	Embed bool
	Table string // matrix case list: a built-in table name or ""
	Repro string // the "Reproduce" preset whose explanation is shown, or ""
	Seeds int    // seeds per run (seed, seed+1, ...); 0 or 1: one
}

// Switch is a kernel switch's name and documentation (kernel.Switches).
type Switch struct {
	Name, Doc, Models, Source string
}

// Repro is a "Reproduce" entry of the page: one of the reproductions (package
// repro), with the state it sets up and what to look at.
type Repro struct {
	ID, Title string
	Explain   string   // the reproduction's Look: two sentences, no results
	Kernels   []string // the kernel presets it needs; it is offered only when all exist
	Missing   []string // those the engine lacks
	State     State    // what Apply sets: its config on A, mode, B's kernel, table
}

// Table is a built-in case list (one of the thread's comparison tables) with its
// kernels and the thread's published numbers.
type Table struct {
	Name, Base, Test string // "T1"; the base and test kernel presets
	Cases            []string
	BaseBW, TestBW   []float64 // the thread's MB/s
	// Setup is the thread's run of the table (the harness: the default config, 600 s,
	// seed 1, with the base kernel) as a form; each case then sets its own fields.
	Setup Form
}

// MeasuredLink is a reference case's name and page link.
type MeasuredLink struct{ Name, Href string }

// Catalog is what the page shows of the engine's registries, built by the worker
// from the one table of each (lab.NewCatalog) and sent once when the page starts.
type Catalog struct {
	// Fields lists the form's controls with every device key; DeviceFields the
	// device keys of each device model (a form shows its model's).
	Fields       []Field
	DeviceFields map[string][]Field
	// Options are the select fields' choices (fs, hz, device, kernel).
	Options map[string][]string
	// KernelDocs and DeviceDocs describe the presets; DeviceModels maps a device
	// preset to its model; KernelOn lists the switches on in each kernel preset.
	KernelDocs, DeviceDocs, DeviceModels map[string]string
	KernelOn                             map[string][]string
	// DeviceValues are each device preset's keys' values; BlockValues the
	// block-layer keys' as the kernel preset sets them for that device, by
	// PlaceholderKey(device, kernel) (the form's greyed placeholders).
	DeviceValues map[string]map[string]string
	BlockValues  map[string]map[string]string
	Switches     []Switch
	// ActivityDocs explain each switch-guarded path Result.SwitchActivity counts.
	ActivityDocs map[string]string
	// SeriesDocs explain every series column and derived series (engine.SeriesDoc);
	// the cards' texts are report.CardDoc.
	SeriesDocs map[string]report.Doc
	Repros     []Repro
	Tables     []Table
	// FirstPage is the form of the case the page opens with (engine.FirstPageConfig)
	// and FirstPageJSON its Config as the page runs it (what static/boot.js starts
	// early); Default is engine.DefaultConfig's form (a link's base).
	FirstPage, Default Form
	FirstPageJSON      string
	// FirstPageCheck is the engine's check of the state the page opens with
	// (FirstPage's form, no hash): the page starts its first run with it, without
	// asking a worker, which may still be compiling worker.wasm.
	FirstPageCheck FirstCheck
	// MatrixCases is the matrix's default case list.
	MatrixCases []string
	// SweepFilesystems, SweepThresholdsMB and SweepWriters are the sweep's grid
	// (harness.SweepFilesystems, ...: the table `wblab sweep` uses).
	SweepFilesystems  []string
	SweepThresholdsMB []int64
	SweepWriters      []int
	// PauseBuckets is the pause histogram's bucket count; OnB* the writeback-list
	// bits of report.InodeDetail.Visited (kernel.OnB*).
	PauseBuckets                              int
	OnBDirty, OnBIO, OnBMoreIO, OnBMoreIOWait uint8
}

// PlaceholderKey is the Catalog.BlockValues key of a device and kernel preset.
func PlaceholderKey(device, kernel string) string { return device + "\x00" + kernel }

// Run is a config the page runs, with what the page shows about it.
type Run struct {
	Config  string // the Config JSON the worker runs
	Preset  string // the kernel preset
	Kernel  string // the kernel preset with the switches set ("3.1 io_less=off")
	Device  string // the device preset with its overrides (--device text)
	Runtime string
	// Absent are the series the run's kernel does not have (IO-full kernels lack the
	// IO-less throttling's ratelimits and setpoint).
	Absent map[string]bool
}

// Check asks whether a state is runnable (kind "check").
type Check struct {
	State State
}

// Checked is a checked state: the link that carries it and, when its form is valid,
// the runs it starts. Err is the first bad input (a field of A, or "b."+field of B),
// Errs all of them.
type Checked struct {
	Hash    string
	CaseBox string // the case name of A's form ("" when it is invalid)
	A, B    *Run   // B in A/B and matrix mode
	// Seeds are the configs of seeds 2..N of A (SeedsA) and B: summary runs.
	SeedsA, SeedsB []string
	Err            *FieldError
	// Errs are every bad input at once (Err is the first), one per control, each
	// message naming its field and allowed range.
	Errs []FieldError `json:",omitempty"`
}

// FirstCheck is a state and the engine's check of it.
type FirstCheck struct {
	State   State
	Checked Checked
}

// Decode asks for the state a URL hash sets (kind "decode").
type Decode struct{ Hash string }

// Decoded is a hash's state; Err names a value the form cannot take at all.
type Decoded struct {
	State State
	Err   *FieldError
}

// ApplyCase asks for the form a case name sets, keeping the other controls (kind "case").
type ApplyCase struct {
	Form Form
	Name string
}

// CaseApplied is the form with the case's fields set, or the case name's error.
type CaseApplied struct {
	Form Form
	Err  *FieldError
}

// MatrixPlan asks for the runs of a matrix (kind "matrix"): every case on A's form
// (base) and on B's kernel (test), Seeds seeds each.
type MatrixPlan struct {
	State State
	Cases []string
	Seeds int
}

// MatrixCell is one case on one kernel: its configs by seed, or why it cannot run.
type MatrixCell struct {
	Configs []string
	Err     string
}

// Planned is a matrix's runs: Cells[i][0] base, [1] test; Header is the harness
// table's header for the two kernels; Diffs lists where the setup differs from the
// built-in table's thread (A/B "field ours (thread: theirs)").
type Planned struct {
	Base, Test string // kernel labels
	Header     string
	Cells      [][2]MatrixCell
	Diffs      []string
	Err        *FieldError
}

// NeverRan asks which switches A and B differ in whose paths ran in neither run
// (kind "neverran").
type NeverRan struct {
	A, B       string // Config JSON
	ActA, ActB map[string]int64
}

// NeverRanText is the sentence naming them, or "".
type NeverRanText struct{ Text string }

// MeasuredAsk asks which reference measured on Linux 6.1 a config models (kind
// "measured"). The page asks when a run finished: parsing the references takes the
// worker a while, and only results show them.
type MeasuredAsk struct{ Config string }

// MeasuredMatch is the reference the config models (nil: none) and the page links
// of all references.
type MeasuredMatch struct {
	Match *Measured
	Links []MeasuredLink
}

// Measured is a reference measured on Linux 6.1: its series (MiB, as the model's
// columns), the write_bw it measured over Window, and the note explaining it.
type Measured struct {
	Name        string
	Series      *report.Series
	WriteBWMBps float64
	Window      string
	Note        string
}

// MaxPageSeeds bounds the seeds per run in the page (engine.MaxSeeds in the CLI).
const MaxPageSeeds = 20

// MeasuredLabel names the measured overlay on the charts and cards.
const MeasuredLabel = "Linux 6.1, measured"
