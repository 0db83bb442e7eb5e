package kernel

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/sim"
)

// TestScenarios runs the list scenarios of testdata/*.txt: each file is a
// kernel developer's notes on one writeback rule, with the commands below and the
// model's answers after "----" (go test -run TestScenarios -rewrite rewrites the
// answers; read the diff before committing it). Every command calls the model's
// own functions (queue_io, writeback_single_inode, wb_writeback ...); the
// scenario only places inodes on lists, as the old hand-built tests did.
//
//	kernel preset=NAME [now=100s] [SWITCH=on|off ...]
//	    a new kernel (kernel.LookupPreset, switches by name through
//	    kernel.Overrides) on the "simple" disk with the test filesystem below,
//	    the clock run to now (default 100 s: dirtied=-30s is a valid time);
//	    HZ=1000, dirty_expire 30 s, dirty_writeback 5 s, dirty_bytes 100 MB
//	inode name=X [list=b_dirty|b_io|b_more_io|b_more_io_wait|none] [pages=N]
//	      [busy=N] [dirtied=-30s] [state=(I_SYNC, I_DIRTY_SYNC, ...)]
//	    a hand-placed inode at the head of list: pages dirty pages (accounted),
//	    of which the first busy are also under writeback (redirtied while a
//	    bio that never completes holds them), dirtied_when relative to now
//	dirty name=X pages=N [every=10s]
//	    a write appending N pages: DirtyPages → __mark_inode_dirty, as a
//	    writer task does (again every so often, with every)
//	fs name=X [skip=on|off] [write_inode=ok|eagain] [until=7s]
//	    the test filesystem's answer for X: ->writepage redirties every page
//	    (redirty_page_for_writepage, pages_skipped), ->write_inode fails with
//	    EAGAIN and re-marks the inode I_DIRTY_SYNC (for until from now)
//	queue-io [work=kupdate|background|sync] [older=-30s]
//	    queue_io for a work starting now: older_than_this is wb_writeback's
//	    (loopDirtiedBefore) unless older= sets it
//	redirty-tail name=X | requeue-io name=X | requeue-io-wait name=X
//	    the list primitives themselves
//	writeback-single-inode name=X [nr_to_write=N] [sync=all] [dirtied_before=-30s]
//	    writeback_single_inode on a flusher-like thread, as writeback_sb_inodes
//	    calls it (from the lists); prints pages written and where the inode went;
//	    dirtied_before is writeback_sb_inodes' cut-off relative to now (default
//	    now; kupdate's is -30s), which 6.12's requeue_inode reads
//	writeback work=kupdate|background|sync [nr_pages=N] [for=5s]
//	    one wb_writeback on the flusher thread, until the work is done or for
//	    has passed
//	run 5s
//	    the whole machine (flusher wakeups, kupdate, IO) for that long
//	print lists | print inodes | print stats
//	expect [name=X list=L dirtied=-30s] [b_io=(a, b) ...]
//	    fails the test when not so (kept through -rewrite)
//
// Lists print head first, as the kernel's diagrams draw them; the flusher takes
// inodes from b_io's tail (the last name). The model's invariants
// (CheckInvariants) are checked after every command.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := &scenario{t: t}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			s.t = t
			out, err := s.do(d)
			if err != nil {
				t.Fatalf("%s: %s: %v", d.Pos, d.Cmd, err)
			}
			if s.k != nil {
				if err := s.k.CheckInvariants(); err != nil {
					t.Fatalf("%s: after %s: %v", d.Pos, d.Cmd, err)
				}
			}
			return out
		})
	})
}

// scenarioFS is the scenarios' filesystem: one page per ->writepage (no
// clustering), each page its own bio; per inode it can redirty the pages it is
// asked to write or fail ->write_inode.
type scenarioFS struct {
	k      *Kernel
	skip   map[uint64]bool     // ->writepage redirties the page (pages_skipped)
	eagain map[uint64]sim.Time // ->write_inode fails with EAGAIN until this time
}

func (f *scenarioFS) Name() string                                             { return "scenario" }
func (f *scenarioFS) Mount(k *Kernel, b *BDI) error                            { f.k = k; return nil }
func (f *scenarioFS) Create(in *Inode)                                         {}
func (f *scenarioFS) WriteBegin(*Thread, *Inode, int64, int64, int64) sim.Time { return 0 }
func (f *scenarioFS) Writepages(wc *WritebackCtx) bool                         { return wc.WriteCachePages() }
func (f *scenarioFS) Writepage(wc *WritebackCtx, index, runEnd int64) int64 {
	wc.Th.Charge(sim.Microsecond)
	if f.skip[wc.In.Ino] {
		wc.RedirtyPageForWritepage(1)
		return 1
	}
	wc.WritePages(index, 1)
	return 1
}
func (f *scenarioFS) WriteInode(wc *WritebackCtx) error {
	if until, ok := f.eagain[wc.In.Ino]; ok && f.k.W.Now() < until {
		f.k.MarkInodeDirty(wc.In, IDirtySync)
		return errors.New("EAGAIN")
	}
	return nil
}
func (f *scenarioFS) Sector(in *Inode, index int64) int64 { return int64(in.Ino)<<30 + index*8 }

// scenario is one file's state.
type scenario struct {
	t      *testing.T
	k      *Kernel
	fs     *scenarioFS
	writer *Thread
	byName map[string]*Inode
	names  map[*Inode]string
	order  []string // names in creation order
}

func (s *scenario) do(d *datadriven.TestData) (string, error) {
	if d.Cmd != "kernel" && s.k == nil {
		return "", errors.New("no kernel yet: start with 'kernel preset=...'")
	}
	switch d.Cmd {
	case "kernel":
		return s.kernel(d)
	case "inode":
		return "", s.inode(d)
	case "dirty":
		in := s.named(d, true)
		n := s.intArg(d, "pages", 1)
		write := func() {
			at := in.Size / PageSize
			s.k.DirtyPages(s.writer, in, at, n, (at+n)*PageSize)
		}
		before := s.k.SwitchActivity()
		write()
		if d.HasArg("every") {
			every, err := s.duration(s.strArg(d, "every", ""))
			if err != nil || every <= 0 {
				return "", fmt.Errorf("every=%s", s.strArg(d, "every", ""))
			}
			tm := &sim.Timer{}
			tm.Fn = func() { write(); s.k.W.After(tm, every) }
			s.k.W.After(tm, every)
		}
		return s.moved(in, before), nil
	case "fs":
		return "", s.fsCmd(d)
	case "queue-io":
		return s.queueIO(d)
	case "redirty-tail", "requeue-io", "requeue-io-wait":
		in := s.named(d, false)
		before := s.k.SwitchActivity()
		switch d.Cmd {
		case "redirty-tail":
			s.k.redirtyTail(in)
		case "requeue-io":
			s.k.requeueIO(in)
		default:
			s.k.requeueIOWait(in)
		}
		return s.moved(in, before), nil
	case "writeback-single-inode":
		return s.writebackSingleInode(d)
	case "writeback":
		return s.writeback(d)
	case "run":
		if len(d.CmdArgs) != 1 {
			return "", errors.New("run DURATION")
		}
		dur, err := s.duration(d.CmdArgs[0].Key)
		if err != nil {
			return "", err
		}
		before := s.k.SwitchActivity()
		if err := s.k.W.Run(s.k.W.Now() + dur); err != nil {
			return "", err
		}
		return s.activity(before), nil
	case "print":
		if len(d.CmdArgs) != 1 {
			return "", errors.New("print lists|inodes|stats")
		}
		switch d.CmdArgs[0].Key {
		case "lists":
			return s.lists(), nil
		case "inodes":
			return s.inodes(), nil
		case "stats":
			return s.stats(), nil
		}
		return "", fmt.Errorf("print %s?", d.CmdArgs[0].Key)
	case "expect":
		return s.expect(d)
	}
	return "", fmt.Errorf("unknown command %q", d.Cmd)
}

// kernel builds the kernel of a preset with switches set by name.
func (s *scenario) kernel(d *datadriven.TestData) (string, error) {
	preset, now := "", 100*sim.Second
	sw := Overrides{}
	for _, a := range d.CmdArgs {
		v := a.SingleVal(s.t)
		switch a.Key {
		case "preset":
			preset = v
		case "now":
			t, err := s.durationAbs(v)
			if err != nil {
				return "", err
			}
			now = t
		default:
			if v != "on" && v != "off" {
				return "", fmt.Errorf("switch %s=%s: on or off", a.Key, v)
			}
			sw[a.Key] = v == "on"
		}
	}
	p, err := LookupPreset(preset)
	if err != nil {
		return "", err
	}
	variants, err := sw.Apply(p.Variants)
	if err != nil {
		return "", err
	}
	w := sim.NewWorld(1000, 1)
	spec, err := devices.Preset("simple")
	if err != nil {
		return "", err
	}
	q, err := devices.New(w, spec, devices.LegacyBlock(spec, 512))
	if err != nil {
		return "", err
	}
	s.fs = &scenarioFS{skip: map[uint64]bool{}, eagain: map[uint64]sim.Time{}}
	params := Params{CPUs: 8, MemoryMB: 4096, Sysctls: Sysctls{DirtyBytes: 100 << 20, DirtyBackgroundRatio: 10,
		DirtyExpireCs: 3000, DirtyWritebackCs: 500}, Costs: DefaultCosts(), Variants: variants}
	k, err := New(w, params)
	if err != nil {
		return "", err
	}
	if _, err := k.AddDisk("8:0", q, s.fs, DefaultBdiKnobs()); err != nil {
		return "", err
	}
	s.k, s.writer = k, k.NewThread("writer")
	s.byName, s.names, s.order = map[string]*Inode{}, map[*Inode]string{}, nil
	if err := w.Run(now); err != nil {
		return "", err
	}
	name := p.Name
	for _, sw := range sortedNames(sw) {
		name += map[bool]string{true: " +", false: " -"}[s.on(sw)] + sw
	}
	return fmt.Sprintf("kernel %s at %s", name, fmtDur(now)), nil
}

// on reads a switch of the kernel by name.
func (s *scenario) on(name string) bool {
	v, ok := s.k.P.Variants.Get(name)
	if !ok {
		s.t.Fatalf("no switch %q", name)
	}
	return v
}

// named finds (or, with create, makes) the inode of the name argument.
func (s *scenario) named(d *datadriven.TestData, create bool) *Inode {
	var name string
	d.ScanArgs(s.t, "name", &name)
	in := s.byName[name]
	if in == nil {
		if !create {
			s.t.Fatalf("%s: no inode %q", d.Pos, name)
		}
		in = s.k.NewInode()
		s.byName[name], s.names[in] = in, name
		s.order = append(s.order, name)
	}
	return in
}

func (s *scenario) intArg(d *datadriven.TestData, key string, def int64) int64 {
	if !d.HasArg(key) {
		return def
	}
	var v int64
	d.ScanArgs(s.t, key, &v)
	return v
}

func (s *scenario) strArg(d *datadriven.TestData, key, def string) string {
	if !d.HasArg(key) {
		return def
	}
	var v string
	d.ScanArgs(s.t, key, &v)
	return v
}

// inode places a hand-built inode.
func (s *scenario) inode(d *datadriven.TestData) error {
	in := s.named(d, true)
	k := s.k
	if pages := s.intArg(d, "pages", 0); pages > 0 {
		k.DirtyPages(s.writer, in, 0, pages, 0)
		if busy := s.intArg(d, "busy", 0); busy > 0 {
			// a bio that never completes holds them; the pages are dirty again
			wc := &WritebackCtx{K: k, Th: s.writer, In: in,
				Wbc: WritebackControl{SyncMode: WBSyncAll, NrToWrite: longMax, RangeEnd: longMax}}
			wc.StartWriteback(0, busy)
			k.DirtyPages(s.writer, in, 0, busy, 0)
		}
	}
	if d.HasArg("state") {
		for _, a := range d.CmdArgs {
			if a.Key != "state" {
				continue
			}
			for _, v := range a.Vals {
				bit, ok := stateBit(v)
				if !ok {
					return fmt.Errorf("state %q", v)
				}
				in.State |= bit
			}
		}
	}
	if in.State&IDirty == 0 && in.State&ISync == 0 {
		return errors.New("an inode needs pages or a dirty state")
	}
	if d.HasArg("dirtied") {
		t, err := s.duration(s.strArg(d, "dirtied", ""))
		if err != nil {
			return err
		}
		in.DirtiedWhen = k.W.Jiffies() + int64(t/sim.Millisecond)
	}
	switch l := s.strArg(d, "list", "b_dirty"); l {
	case "none":
		listDelInit(in)
	default:
		list := s.list(l)
		if list == nil {
			return fmt.Errorf("list %q", l)
		}
		listMove(in, list)
	}
	return nil
}

func stateBit(name string) (int, bool) {
	if name == "I_SYNC_QUEUED" {
		return ISyncQueued, true
	}
	for _, n := range stateNames {
		if n.name == name {
			return n.bit, true
		}
	}
	return 0, false
}

func (s *scenario) list(name string) *inodeList {
	b := s.k.BDI
	for _, l := range []*inodeList{&b.bDirty, &b.bIO, &b.bMoreIO, &b.bMoreIOWait} {
		if l.name == name {
			return l
		}
	}
	return nil
}

func (s *scenario) fsCmd(d *datadriven.TestData) error {
	in := s.named(d, false)
	if d.HasArg("skip") {
		s.fs.skip[in.Ino] = s.strArg(d, "skip", "") == "on"
	}
	switch s.strArg(d, "write_inode", "") {
	case "eagain":
		until := sim.Time(1 << 62)
		if d.HasArg("until") {
			t, err := s.duration(s.strArg(d, "until", ""))
			if err != nil {
				return err
			}
			until = s.k.W.Now() + t
		}
		s.fs.eagain[in.Ino] = until
	case "ok":
		delete(s.fs.eagain, in.Ino)
	}
	return nil
}

// newWork is the work a flusher would start now for the kind.
func (s *scenario) newWork(kind string, nrPages int64) (*WbWritebackWork, error) {
	w := &WbWritebackWork{NrPages: nrPages, SyncMode: WBSyncNone, RangeCyclic: true}
	switch kind {
	case "kupdate":
		w.ForKupdate, w.Reason = true, ReasonPeriodic
	case "background":
		w.ForBackground, w.Reason = true, ReasonBackground
	case "sync":
		w.SyncMode, w.RangeCyclic, w.Reason = WBSyncAll, false, ReasonSync
	default:
		return nil, fmt.Errorf("work %q: kupdate, background or sync", kind)
	}
	return w, nil
}

func (s *scenario) queueIO(d *datadriven.TestData) (string, error) {
	k := s.k
	w, err := s.newWork(s.strArg(d, "work", "kupdate"), longMax)
	if err != nil {
		return "", err
	}
	// wb_writeback's start (startWork), then its per-loop cut-off
	w.olderThanThis, w.hasOlder = k.W.Jiffies(), true
	k.loopDirtiedBefore(w)
	if d.HasArg("older") {
		t, err := s.duration(s.strArg(d, "older", ""))
		if err != nil {
			return "", err
		}
		w.olderThanThis = k.W.Jiffies() + int64(t/sim.Millisecond)
	}
	k.queueIO(k.BDI, nil, w)
	return fmt.Sprintf("older_than_this %s\n%s", s.rel(w.olderThanThis), s.lists()), nil
}

// writebackSingleInode runs writeback_single_inode (from the lists) on a thread
// of its own until it returns.
func (s *scenario) writebackSingleInode(d *datadriven.TestData) (string, error) {
	k, in := s.k, s.named(d, false)
	wbc := WritebackControl{SyncMode: WBSyncNone, NrToWrite: s.intArg(d, "nr_to_write", 1024), RangeCyclic: true, RangeEnd: longMax}
	if s.strArg(d, "sync", "none") == "all" {
		wbc.SyncMode, wbc.NrToWrite, wbc.RangeCyclic = WBSyncAll, longMax, false
	}
	th := k.NewThread("wsi")
	m := &singleInodeWB{}
	m.begin(k, th, in, wbc, true)
	m.dirtiedBefore = k.W.Jiffies() // writeback_sb_inodes' cut-off (6.12 requeue_inode)
	if d.HasArg("dirtied_before") {
		t, err := s.duration(s.strArg(d, "dirtied_before", ""))
		if err != nil {
			return "", err
		}
		m.dirtiedBefore += int64(t / sim.Millisecond)
	}
	done := false
	th.Task.Resume = func() {
		if !k.writebackSingleInode(th, m) {
			done = true
			th.Task.Exit()
		}
	}
	before := k.SwitchActivity()
	th.Task.Start()
	for end := k.W.Now() + 10*sim.Second; !done && k.W.Now() < end; {
		if err := k.W.Run(k.W.Now() + 10*sim.Microsecond); err != nil {
			return "", err
		}
	}
	if !done {
		return "", errors.New("writeback_single_inode did not return within 10 s")
	}
	return fmt.Sprintf("wrote %d\n%s", m.nrToWrite-m.wc.Wbc.NrToWrite, s.moved(in, before)), nil
}

// writeback runs one wb_writeback work on the flusher thread.
func (s *scenario) writeback(d *datadriven.TestData) (string, error) {
	k, f := s.k, s.k.flusher
	if st := f.th.Task.State(); f.work != nil || (st != sim.TaskSleeping && st != sim.TaskWaiting) {
		return "", errors.New("the flusher is busy")
	}
	w, err := s.newWork(s.strArg(d, "work", "kupdate"), s.intArg(d, "nr_pages", longMax))
	if err != nil {
		return "", err
	}
	limit := 5 * sim.Second
	if d.HasArg("for") {
		if limit, err = s.duration(s.strArg(d, "for", "")); err != nil {
			return "", err
		}
	}
	before, start := k.SwitchActivity(), k.W.Now()
	busy, written := k.busyLoops, k.G.NrWritten+k.G.NrWriteback
	// bdi_writeback_thread's loop top, then wb_writeback of the work
	f.pagesWritten, f.totalProgress, f.b.writebackRunning = 0, 0, true
	f.startWork(w, fpDone)
	f.wake()
	for !w.Done() && k.W.Now() < start+limit {
		if err := k.W.Run(k.W.Now() + 10*sim.Microsecond); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	if w.Done() {
		fmt.Fprintf(&b, "done after %s", fmtDur(k.W.Now()-start))
	} else {
		fmt.Fprintf(&b, "not done after %s", fmtDur(limit))
	}
	fmt.Fprintf(&b, ": %d pages submitted, %d busy loops\n", k.G.NrWritten+k.G.NrWriteback-written, k.busyLoops-busy)
	b.WriteString(s.activity(before))
	b.WriteString(s.lists())
	return b.String(), nil
}

// moved reports where in is now and the requeue counted since before.
func (s *scenario) moved(in *Inode, before map[string]int64) string {
	l := in.OnList()
	if l == "" {
		l = "off the lists"
	}
	out := fmt.Sprintf("%s: %s, dirtied %s, %s", s.names[in], l, s.rel(in.DirtiedWhen), stateOrClean(in.State))
	if a := s.activity(before); a != "" {
		out += "\n" + strings.TrimSuffix(a, "\n")
	}
	return out
}

// activity lists the switch-activity counters that moved since before.
func (s *scenario) activity(before map[string]int64) string {
	after := s.k.SwitchActivity()
	var out []string
	for name, n := range after {
		if d := n - before[name]; d != 0 {
			out = append(out, fmt.Sprintf("%s +%d", name, d))
		}
	}
	if len(out) == 0 {
		return ""
	}
	sort.Strings(out)
	return "activity: " + strings.Join(out, ", ") + "\n"
}

// stateOrClean is show_inode_state's text, plus I_SYNC_QUEUED (which the
// tracepoints do not print), or "clean".
func stateOrClean(state int) string {
	s := StateString(state)
	if state&ISyncQueued != 0 {
		s = strings.TrimPrefix(s+"|I_SYNC_QUEUED", "|")
	}
	if s == "" {
		return "clean"
	}
	return s
}

func (s *scenario) lists() string {
	b := s.k.BDI
	var out strings.Builder
	for _, l := range []*inodeList{&b.bDirty, &b.bIO, &b.bMoreIO, &b.bMoreIOWait} {
		if l.name == "b_more_io_wait" && l.n == 0 && !s.on("more_io_wait") {
			continue
		}
		line := fmt.Sprintf("%-15s", l.name+":")
		for in := l.head; in != nil; in = in.next {
			line += " " + s.names[in]
		}
		out.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return out.String()
}

func (s *scenario) inodes() string {
	var out strings.Builder
	for _, name := range s.order {
		in := s.byName[name]
		l := in.OnList()
		if l == "" {
			l = "-"
		}
		st := in.Stats()
		fmt.Fprintf(&out, "%s: %s dirtied %s %s dirty=%d writeback=%d written=%d calls=%d max_meta_age=%s\n",
			name, l, s.rel(in.DirtiedWhen), stateOrClean(in.State), in.Dirty.Count(), in.Writeback.Count(),
			in.Written(), st.WritebackCalls, fmtDur(st.MaxMetaAge))
	}
	return out.String()
}

func (s *scenario) stats() string {
	f := s.k.flusher.Stats
	return fmt.Sprintf("flusher: wakeups=%d kupdate=%d background=%d inode_calls=%d retry_sleeps=%d busy_loops=%d\n",
		f.Wakeups, f.KupdateWB, f.BackgroundWB, f.InodeCalls, f.RetrySleeps, s.k.busyLoops)
}

// expect checks inode and list facts; a failed check fails the test even under
// -rewrite.
func (s *scenario) expect(d *datadriven.TestData) (string, error) {
	var in *Inode
	if d.HasArg("name") {
		in = s.named(d, false)
	}
	var bad []string
	for _, a := range d.CmdArgs {
		var got, want string
		switch {
		case a.Key == "name":
			continue
		case a.Key == "list" && in != nil:
			got, want = in.OnList(), a.SingleVal(s.t)
			if want == "none" {
				want = ""
			}
		case a.Key == "dirtied" && in != nil:
			got, want = s.rel(in.DirtiedWhen), a.SingleVal(s.t)
		case a.Key == "state" && in != nil:
			got, want = stateOrClean(in.State), strings.Join(a.Vals, "|")
		case s.list(a.Key) != nil:
			l := s.list(a.Key)
			var names []string
			for x := l.head; x != nil; x = x.next {
				names = append(names, s.names[x])
			}
			got, want = strings.Join(names, " "), strings.Join(a.Vals, " ")
		default:
			return "", fmt.Errorf("expect %s?", a.Key)
		}
		if got != want {
			bad = append(bad, fmt.Sprintf("%s: got %q, want %q", a.Key, got, want))
		}
	}
	if len(bad) > 0 {
		s.t.Errorf("%s: %s", d.Pos, strings.Join(bad, "; "))
		return "FAILED: " + strings.Join(bad, "; "), nil
	}
	return "ok", nil
}

// rel prints a jiffies time relative to now.
func (s *scenario) rel(j int64) string {
	d := sim.Time(j-s.k.W.Jiffies()) * sim.Millisecond
	if d == 0 {
		return "now"
	}
	if d > 0 {
		return "+" + fmtDur(d)
	}
	return "-" + fmtDur(-d)
}

// fmtDur prints a duration as the scenarios write it (30s, 1.5s, 250ms).
func fmtDur(d sim.Time) string {
	if d%sim.Second == 0 {
		return fmt.Sprintf("%ds", d/sim.Second)
	}
	if d > sim.Second {
		return time.Duration(d).Round(time.Millisecond).String()
	}
	return time.Duration(d).String()
}

// duration parses "-30s", "+7s", "250ms".
func (s *scenario) duration(v string) (sim.Time, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, err
	}
	return sim.Time(d), nil
}

func (s *scenario) durationAbs(v string) (sim.Time, error) {
	d, err := s.duration(v)
	if err == nil && d < 0 {
		err = fmt.Errorf("%s: not a time", v)
	}
	return d, err
}
