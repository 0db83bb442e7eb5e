package ui

import (
	"fmt"
	"html"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vugu/vugu"
)

// TraceLine is one parsed ftrace line of a run's kept trace.
type TraceLine struct {
	T                float64 // seconds
	Task, Event, Ino string
	Text             string
}

// ParseTrace reads trace_pipe text (engine trace.Buffer lines) into lines; lines
// that are not trace lines (comments) are skipped.
func ParseTrace(text string) []TraceLine {
	var out []TraceLine
	for _, l := range strings.Split(text, "\n") {
		if x, ok := parseTraceLine(l); ok {
			out = append(out, x)
		}
	}
	return out
}

// parseTraceLine reads "  TASK-PID  [CPU]  SECONDS: EVENT: TEXT" and the first
// ino=N of TEXT. (No regexp: it is a quarter of the UI module's code.)
func parseTraceLine(l string) (TraceLine, bool) {
	open := strings.IndexByte(l, '[')
	if open < 0 {
		return TraceLine{}, false
	}
	task := strings.TrimSpace(l[:open])
	dash := strings.LastIndexByte(task, '-')
	if dash <= 0 || !digits(task[dash+1:]) || task == strings.TrimLeft(l[:open], " \t") {
		return TraceLine{}, false // no TASK-PID, or no space before [CPU]
	}
	cpu, rest, ok := strings.Cut(l[open+1:], "]")
	if !ok || !digits(cpu) || rest == strings.TrimLeft(rest, " \t") {
		return TraceLine{}, false
	}
	ts, rest, ok := strings.Cut(strings.TrimLeft(rest, " \t"), ": ")
	whole, frac, dot := strings.Cut(ts, ".")
	if !ok || !dot || !digits(whole) || !digits(frac) {
		return TraceLine{}, false
	}
	event, text, ok := strings.Cut(rest, ":")
	if !ok || event == "" || !strings.HasPrefix(text, " ") {
		return TraceLine{}, false
	}
	t, _ := strconv.ParseFloat(ts, 64)
	return TraceLine{T: t, Task: task, Event: event, Ino: inoOf(text[1:]), Text: l}, true
}

// inoOf is N of the first "ino=N" that starts a word of s, or "".
func inoOf(s string) string {
	for i := 0; ; {
		j := strings.Index(s[i:], "ino=")
		if j < 0 {
			return ""
		}
		j += i
		n := j + 4
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n > j+4 && (j == 0 || !wordByte(s[j-1])) {
			return s[j+4 : n]
		}
		i = j + 4
	}
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func wordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// TraceFilter selects lines: by event, task and inode (exact, "" any) and a search
// text (substring, case-insensitive).
type TraceFilter struct{ Event, Task, Ino, Search string }

// Match reports whether l passes the filter.
func (f TraceFilter) Match(l TraceLine) bool {
	f.Search = strings.ToLower(f.Search)
	return f.match(l)
}

// match is Match with f.Search in lower case already.
func (f TraceFilter) match(l TraceLine) bool {
	return (f.Event == "" || l.Event == f.Event) && (f.Task == "" || l.Task == f.Task) && (f.Ino == "" || l.Ino == f.Ino) &&
		(f.Search == "" || containsFold(l.Text, f.Search))
}

// containsFold reports whether s contains lower (lower case ASCII), ignoring
// ASCII case in s (trace lines are ASCII).
func containsFold(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for ; j < len(lower); j++ {
			b := s[i+j]
			if b >= 'A' && b <= 'Z' {
				b += 'a' - 'A'
			}
			if b != lower[j] {
				break
			}
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// TraceWindow is how many matching lines the viewer shows from its cursor.
const TraceWindow = 200

// TraceView is the trace viewer: the kept trace of the shown run, filtered and
// searched, shown from a cursor time that a click on any chart moves; clicking a
// line marks its time on every chart.
type TraceView struct {
	Filter TraceFilter
	Cursor float64 // seconds: the view starts at the first matching line at or after it
	Marked float64 // the clicked line's time (-1: none)

	key   string // the parsed run (RunState pointer and trace length)
	lines []TraceLine
	lab   *Root
	// memo of the last Count and Choices (a render asks for them at every pass)
	countKey, count string
	shownKey        string
	shown           []TraceLine
	choices         map[string][]string
}

func (c *TraceView) run() *RunState {
	if c.lab.matrixOnly() {
		return nil
	}
	return c.lab.Results.shownA()
}

// Lines are the parsed lines of the shown run (parsed once per run).
func (c *TraceView) all() []TraceLine {
	r := c.run()
	if r == nil || r.Trace == "" {
		return nil
	}
	if k := fmt.Sprintf("%p/%d", r, len(r.Trace)); k != c.key {
		c.key, c.lines, c.choices, c.countKey = k, ParseTrace(r.Trace), nil, ""
	}
	return c.lines
}

// Has reports whether the shown run kept a trace.
func (c *TraceView) Has() bool { return len(c.all()) > 0 }

// Finished reports whether there is a finished run (without a trace: offer one).
func (c *TraceView) Finished() bool { r := c.run(); return r != nil && r.Res != nil }

// RecordAndRun ticks "record trace" and runs again.
func (c *TraceView) RecordAndRun() {
	c.lab.Form.Form["trace"] = "on"
	c.lab.Run()
}

// Shown are the matching lines from the cursor, at most TraceWindow.
func (c *TraceView) Shown() []TraceLine {
	ls := c.all()
	k := fmt.Sprintf("%s/%v/%v", c.key, c.Filter, c.Cursor)
	if k == c.shownKey {
		return c.shown
	}
	c.shownKey, c.shown = k, c.shownNow(ls)
	return c.shown
}

func (c *TraceView) shownNow(ls []TraceLine) []TraceLine {
	i := sort.Search(len(ls), func(i int) bool { return ls[i].T >= c.Cursor })
	var out []TraceLine
	f := c.Filter
	f.Search = strings.ToLower(f.Search)
	for ; i < len(ls) && len(out) < TraceWindow; i++ {
		if f.match(ls[i]) {
			out = append(out, ls[i])
		}
	}
	return out
}

// Count is how many lines match, and of how many kept.
func (c *TraceView) Count() string {
	ls := c.all()
	k := fmt.Sprintf("%s/%v/%v", c.key, c.Filter, c.Cursor)
	if k == c.countKey {
		return c.count
	}
	c.countKey, c.count = k, c.countText(ls)
	return c.count
}

func (c *TraceView) countText(ls []TraceLine) string {
	n := 0
	f := c.Filter
	f.Search = strings.ToLower(f.Search)
	for _, l := range ls {
		if f.match(l) {
			n++
		}
	}
	s := fmt.Sprintf("%d of %d kept lines match", n, len(ls))
	if every := c.every(); every > 1 {
		s += fmt.Sprintf(". Sampled: the run wrote %d trace lines and the viewer keeps about 1 in %d, evenly over the run, so a filter shows about 1 in %d of its lines",
			len(ls)+c.run().Res.TraceDropped, every, every)
	}
	return s + fmt.Sprintf("; from t = %.3f s", c.Cursor)
}

// every is how many of the run's trace lines each kept one stands for (1: all kept).
func (c *TraceView) every() int {
	r := c.run()
	n := len(c.all())
	if r == nil || r.Res == nil || r.Res.TraceDropped <= 0 || n == 0 {
		return 1
	}
	return int(math.Round(float64(n+r.Res.TraceDropped) / float64(n)))
}

// FullWindow is the time window ([from, until) in s) that "Run again with every
// line" keeps: from the first matching line at the cursor, as many of the run's lines as 4/5 of the lines the
// sampled trace kept (the engine samples a window that does not fit): the kept
// lines are 1 in every() of the run's, so the window spans that many kept ones /
// every(); ok is false when the trace is not sampled or no filter narrows it.
func (c *TraceView) FullWindow() (from, until float64, ok bool) {
	ls := c.all()
	every := c.every()
	if every <= 1 || (c.Filter.Ino == "" && c.Filter.Task == "" && c.Filter.Event == "") {
		return 0, 0, false
	}
	shown := c.Shown()
	if len(shown) == 0 {
		return 0, 0, false
	}
	i := sort.Search(len(ls), func(i int) bool { return ls[i].T >= shown[0].T }) // the first match
	j := min(i+4*len(ls)/(5*every), len(ls)-1)
	if i >= j {
		return 0, 0, false
	}
	from, until = math.Floor(ls[i].T*10)/10, math.Floor(ls[j].T*10)/10 // 0.1 s
	return from, until, until > from
}

// FullText is the "every line" button's text ("" hides it).
func (c *TraceView) FullText() string {
	from, until, ok := c.FullWindow()
	if !ok {
		return ""
	}
	what := "these lines"
	switch {
	case c.Filter.Ino != "":
		what = "inode " + c.Filter.Ino
	case c.Filter.Task != "":
		what = c.Filter.Task
	case c.Filter.Event != "":
		what = c.Filter.Event
	}
	return fmt.Sprintf("Run again keeping every line of t = %.1f-%.1f s (all of %s's lines there)", from, until, what)
}

// RunFull runs the case again with the trace kept unsampled over FullWindow; the
// filter stays, so the viewer then shows every matching line of that window.
func (c *TraceView) RunFull() {
	from, until, ok := c.FullWindow()
	if !ok {
		return
	}
	c.lab.Form.Form["trace"] = "on"
	c.lab.Form.Form["trace_window"] = fmt.Sprintf("%.1fs-%.1fs", from, until)
	c.Cursor = from
	c.lab.Run()
}

// EmptyState reports whether a shown line prints "state=" with no flag after it.
func (c *TraceView) EmptyState() bool {
	for _, l := range c.Shown() {
		if strings.Contains(l.Text, " state= ") {
			return true
		}
	}
	return false
}

// Choices lists the distinct values of a field for the filter selects.
func (c *TraceView) Choices(field string) []string {
	ls := c.all()
	if ch, ok := c.choices[field]; ok {
		return ch
	}
	seen := map[string]bool{}
	for _, l := range ls {
		v := map[string]string{"event": l.Event, "task": l.Task}[field]
		seen[v] = true
	}
	if c.choices == nil {
		c.choices = map[string][]string{}
	}
	c.choices[field] = slices.Sorted(maps.Keys(seen))
	return c.choices[field]
}

// SetFilter handles the filter controls.
func (c *TraceView) SetFilter(field string, e vugu.DOMEvent) {
	v := strings.TrimSpace(e.PropString("target", "value"))
	switch field {
	case "event":
		c.Filter.Event = v
	case "task":
		c.Filter.Task = v
	case "ino":
		c.Filter.Ino = v
	case "search":
		c.Filter.Search = v
	}
}

// SetCursor handles the time box.
func (c *TraceView) SetCursor(e vugu.DOMEvent) {
	if t, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(e.PropString("target", "value")), "s"), 64); err == nil {
		c.Cursor = max(t, 0)
	}
}

// Jump moves the viewer to time t (a click on a chart) and marks it on the charts.
func (c *TraceView) Jump(t float64) {
	c.Cursor, c.Marked = t, t
	MarkTime(t)
}

// Pick marks a line's time on every chart.
func (c *TraceView) Pick(l TraceLine) {
	c.Marked = l.T
	MarkTime(l.T)
}

// fill writes the shown lines into the page when they changed (static/lab.js fill,
// not Vugu: 200 lines with their handlers cost every render); a click or a key on a
// line comes back through OnTracePick.
func (c *TraceView) fill() {
	// at once, in the render's task (200 short lines): a filter's lines replace the
	// last ones without a moment of an empty list between
	if k := c.fillKey(); k != "" {
		FillHTML("trace-lines", k, c.linesHTML)
	}
}

// fillKey names the lines shown now ("": none).
func (c *TraceView) fillKey() string {
	if !c.Has() {
		return ""
	}
	return fmt.Sprintf("%s/%v/%v/%v", c.key, c.Filter, c.Cursor, c.Marked)
}

// linesHTML is the shown lines' HTML.
func (c *TraceView) linesHTML() string {
	var b strings.Builder
	for _, l := range c.Shown() {
		fmt.Fprintf(&b, `<div class="%s" role="listitem" tabindex="0" data-t="%s">%s</div>`,
			c.LineClass(l), strconv.FormatFloat(l.T, 'g', -1, 64), html.EscapeString(l.Text))
	}
	return b.String()
}

// LineClass highlights the marked line.
func (c *TraceView) LineClass(l TraceLine) string {
	if l.T == c.Marked {
		return "tl marked"
	}
	return "tl"
}

// Next moves the cursor past the shown lines.
func (c *TraceView) Next() {
	if s := c.Shown(); len(s) > 0 {
		c.Cursor = s[len(s)-1].T + 1e-6
	}
}

// Start moves the cursor to the beginning.
func (c *TraceView) Start() { c.Cursor = 0 }

// CursorText is the time box's text.
func (c *TraceView) CursorText() string { return strconv.FormatFloat(c.Cursor, 'f', 3, 64) }
