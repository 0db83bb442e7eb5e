package ui

import (
	"fmt"
	"html"
	"sort"
	"strings"

	"github.com/vugu/vugu"
	"github.com/wblab/wblab/ui/wire"
)

// FormPanel is the form: A's controls, B's kernel and switches, the case box, and the
// input errors shown next to them.
type FormPanel struct {
	Form    Form
	B       Form // B's kernel and switches (A/B and matrix)
	Errs    map[string]string
	CaseBox string

	lastValid Form // the form when the engine last found it valid (probe)
	lab       *Root
}

// apply sets the form from a state.
func (c *FormPanel) apply(st State) {
	c.Form = st.Form
	if c.Form == nil {
		c.Form = Form{}
	}
	c.B = st.B.Clone()
	if c.B["kernel"] == "" {
		c.B["kernel"] = c.Form["kernel"]
	}
}

// Mode is the page's mode (the B fieldset shows in A/B and matrix mode).
func (c *FormPanel) Mode() string { return c.lab.Mode }

// F is a control's text.
func (c *FormPanel) F(id string) string { return c.Form[id] }

// SetF handles an input or change event on a control.
func (c *FormPanel) SetF(id string, e vugu.DOMEvent) {
	v := e.PropString("target", "value")
	if e.PropString("target", "type") == "checkbox" {
		v = onOff(e.PropBool("target", "checked"))
	}
	c.Form[id] = v
	delete(c.Errs, id)
	delete(c.Errs, "case") // the box gets the edited form's name
	if id == "device" {    // a new preset: its own keys and values
		for k := range c.Form {
			if strings.HasPrefix(k, "dev.") {
				delete(c.Form, k)
			}
		}
	}
	c.changed(true)
}

// changed marks the shown results as another form's and has the engine check the
// form: the link, and with box the case box's name.
func (c *FormPanel) changed(box bool) {
	c.lab.Results.Stale = c.lab.Results.A != nil
	c.lab.refresh(box)
}

// SetB handles B's kernel controls.
func (c *FormPanel) SetB(id string, e vugu.DOMEvent) {
	c.B[id] = e.PropString("target", "value")
	delete(c.Errs, "b."+id)
	c.changed(false)
}

// BF is a B control's text.
func (c *FormPanel) BF(id string) string { return c.B[id] }

// DeviceModel is the model of the chosen device preset.
func (c *FormPanel) DeviceModel() string { return Cat.DeviceModels[c.Form["device"]] }

// Placeholder is a device key's preset value: the block-layer keys as the chosen
// kernel preset sets them for the chosen device.
func (c *FormPanel) Placeholder(id string) string {
	if !strings.HasPrefix(id, "dev.") {
		return ""
	}
	key := id[4:]
	if v, ok := Cat.BlockValues[wire.PlaceholderKey(c.Form["device"], c.Form["kernel"])][key]; ok {
		return v
	}
	return Cat.DeviceValues[c.Form["device"]][key]
}

// Groups lists the form's field groups in order.
func (c *FormPanel) Groups() []string {
	return []string{"workload", "sysctl", "machine", "device", "kernel", "run"}
}

// GroupFields lists a group's fields.
func (c *FormPanel) GroupFields(g string) []Field {
	var out []Field
	for _, f := range Fields(c.DeviceModel()) {
		if f.Group == g {
			out = append(out, f)
		}
	}
	return out
}

// ShownFields lists a group's fields built so far: the first mount adds the form a
// few fields a stage (Root.Stage), in the order of Groups.
func (c *FormPanel) ShownFields(g string) []Field {
	left := c.lab.FormShown()
	for _, h := range c.Groups() {
		fs := c.GroupFields(h)
		if h == g {
			return fs[:max(0, min(left, len(fs)))]
		}
		left -= len(fs)
	}
	return nil
}

// VariantFields are the kernel switches (for B).
func (c *FormPanel) VariantFields() []Field { return c.GroupFields("kernel")[1:] }

// ApplyCase sets the form from the case box (the engine parses it) and, when the
// name was good, calls then (with the event lock held). The answer comes on another
// goroutine.
func (c *FormPanel) ApplyCase(then func()) {
	q := wire.ApplyCase{Form: c.Form.Clone(), Name: c.CaseBox}
	go func() {
		var a wire.CaseApplied
		err := Ask("case", q, &a)
		c.lab.ee.Lock()
		defer c.lab.ee.UnlockRender()
		switch {
		case err != nil:
			c.Errs["case"] = "engine: " + err.Error()
		case a.Err != nil:
			c.Errs["case"] = a.Err.Msg
		default:
			delete(c.Errs, "case")
			c.Form = a.Form
			c.lab.saveHash()
			if then != nil {
				then()
			}
		}
	}()
}

// setErr shows an input error next to its control, or under the case box when the
// page has no such control (a link naming a switch or device key this build lacks).
func (c *FormPanel) setErr(e *FieldError) {
	msg := pageMsg(e.Msg)
	if strings.HasPrefix(e.Field, "b.") { // B's controls: listed under B's fieldset
		c.Errs[e.Field] = msg
		return
	}
	for _, f := range Fields(c.DeviceModel()) {
		if f.ID == e.Field {
			c.Errs[e.Field] = msg
			return
		}
	}
	if !strings.HasPrefix(msg, "link: ") && !strings.HasPrefix(msg, "case") {
		msg = e.Field + ": " + msg
	}
	c.Errs["case"] = msg
}

// pageMsg drops the lists of allowed names an error ends with ("(keys: qd, ...)",
// "(presets: ...)"): the page's select or the device fields below show them.
func pageMsg(msg string) string {
	for _, l := range []string{" (keys: ", " (presets: ", " (switches: "} {
		if i := strings.Index(msg, l); i >= 0 {
			j := strings.Index(msg[i:], ")")
			if j < 0 {
				j = len(msg) - i - 1
			}
			what := "the list in the form"
			if l == " (keys: " {
				what = "the device fields in the form"
			}
			msg = msg[:i] + " (see " + what + ")" + msg[i+j+1:]
		}
	}
	return msg
}

// Doc is the description of the chosen kernel or device preset.
func (c *FormPanel) Doc(id string) string {
	switch id {
	case "kernel", "b.kernel":
		name := c.Form["kernel"]
		if id == "b.kernel" {
			name = c.B["kernel"]
		}
		return Cat.KernelDocs[name]
	case "device":
		return Cat.DeviceDocs[c.Form["device"]]
	}
	return ""
}

// clearErrs drops every field's error (the engine found the form valid).
func (c *FormPanel) clearErrs() {
	for k := range c.Errs {
		if !keptErrs[k] {
			delete(c.Errs, k)
		}
	}
}

// Err is a control's error text.
func (c *FormPanel) Err(id string) string { return c.Errs[id] }

// Opts are a select's [value, text] choices; the current value stays listed even when
// the engine does not offer it (so a link naming it shows the engine's error).
func (c *FormPanel) Opts(f Field) [][2]string {
	if f.Kind == "tri" {
		return [][2]string{{"", "preset"}, {"on", "on"}, {"off", "off"}}
	}
	var out [][2]string
	found := false
	for _, o := range Options(f.ID) {
		out = append(out, [2]string{o, o})
		found = found || o == c.Form[f.ID]
	}
	if !found && c.Form[f.ID] != "" {
		out = append(out, [2]string{c.Form[f.ID], c.Form[f.ID]})
	}
	return out
}

// OptsHTML is a select's options as HTML, sel's selected: one string for Vugu to
// set (vg-html) instead of an element per option, which every render re-sent (the
// form's ~500 options were most of a render's work; issue 35).
func (c *FormPanel) OptsHTML(opts [][2]string, sel string) vugu.HTML {
	var b strings.Builder
	for _, o := range opts {
		b.WriteString(`<option value="`)
		b.WriteString(html.EscapeString(o[0]))
		b.WriteString(`"`)
		if o[0] == sel {
			b.WriteString(` selected`)
		}
		b.WriteString(`>`)
		b.WriteString(html.EscapeString(o[1]))
		b.WriteString(`</option>`)
	}
	return vugu.HTML(b.String())
}

// Pairs is each of vals as a select option (value and label the same).
func Pairs(vals []string) [][2]string {
	out := make([][2]string, len(vals))
	for i, v := range vals {
		out[i] = [2]string{v, v}
	}
	return out
}

// BErrs are errors of B's controls.
func (c *FormPanel) BErrs() []string {
	var out []string
	for k, v := range c.Errs {
		if strings.HasPrefix(k, "b.") {
			out = append(out, v)
		}
	}
	return out
}

// CheckedAll is the engine's check of a state with every input error it found.
// Errs and Errors take the list of errors when the lab's answer carries one (under
// either name); the answer may also carry only the first bad input (Err).
type CheckedAll struct {
	wire.Checked
	Errs, Errors []*FieldError
}

// errs are the answer's input errors, the list's and Err, each field once; an
// error of several lines ("key: message" each, the engine's joined validation
// errors) is one error per line, on the field its key names.
func (ck *CheckedAll) errs() []*FieldError {
	var out []*FieldError
	seen := map[string]bool{}
	for _, l := range [][]*FieldError{ck.Errs, ck.Errors, {ck.Err}} {
		for _, e := range l {
			if e == nil {
				continue
			}
			for _, e := range splitFieldErr(e) {
				if !seen[e.Field] {
					seen[e.Field] = true
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// splitFieldErr is e, one error per line of its message: a line whose key names
// another field ("memory_MB: ...", "workload.dd: ...") is that field's.
func splitFieldErr(e *FieldError) []*FieldError {
	lines := strings.Split(strings.TrimSpace(e.Msg), "\n")
	first := &FieldError{Field: e.Field, Msg: lines[0]}
	out := []*FieldError{first}
	for _, l := range lines[1:] {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		key, _, _ := strings.Cut(l, ": ")
		if f := fieldOfKey(key); f != "" && f != e.Field {
			out = append(out, &FieldError{Field: f, Msg: l})
			continue
		}
		first.Msg += "; " + l
	}
	return out
}

// fieldOfKey is the form field a config key in an error names ("memory_MB",
// "workload.dd", "device.capacity"), or "".
func fieldOfKey(key string) string {
	k := key[strings.LastIndex(key, ".")+1:]
	if k == "" || strings.ContainsAny(k, " \"") {
		return ""
	}
	var ids []string
	for _, f := range Cat.Fields {
		ids = append(ids, f.ID)
	}
	for _, fs := range Cat.DeviceFields {
		for _, f := range fs {
			ids = append(ids, f.ID)
		}
	}
	for _, id := range ids {
		if id == k || id == "dev."+k {
			return id
		}
	}
	for _, id := range ids {
		if strings.HasPrefix(k, id+"_") && !strings.HasPrefix(id, "dev.") {
			return id
		}
	}
	return ""
}

// keptErrs are the error keys a check of the form does not decide: the case box's
// own name and the matrix's case list.
var keptErrs = map[string]bool{"case": true, "cases": true}

// showChecked shows the engine's check of st (an edit's): every input error next
// to its field, the case name or why there is none. An answer that carries only
// the first bad input (the lab's before it listed every error) leaves the errors of
// other fields that were not edited since; each field edited away from the last
// valid form whose error the answer does not name is checked on its own (probe),
// so every bad field shows its error after one edit each. Called with the event
// lock held; probes ask on another goroutine (gen: the refresh's generation).
func (c *FormPanel) showChecked(st State, ck CheckedAll, box bool, gen int) {
	errs := ck.errs()
	if box {
		c.CaseBox = ck.CaseBox
	}
	if len(errs) == 0 { // the form is valid: no field error stands
		c.clearErrs()
		c.lastValid = st.Form.Clone()
		return
	}
	if len(ck.Errs)+len(ck.Errors) > 0 { // the whole list: it replaces the fields' errors
		c.clearErrs()
	}
	named := map[string]bool{}
	for _, e := range errs {
		c.setErr(e)
		named[e.Field] = true
	}
	c.probe(st, named, gen)
}

// probe sets the errors probeErrs finds (on another goroutine; a newer refresh
// drops them).
func (c *FormPanel) probe(st State, named map[string]bool, gen int) {
	base := c.lastValid
	known := map[string]bool{}
	for k := range c.Errs {
		known[k] = true
	}
	go func() {
		found := probeErrs(base, st, named, known)
		if len(found) == 0 {
			return
		}
		c.lab.ee.Lock()
		defer c.lab.ee.UnlockRender()
		if gen != c.lab.hashGen {
			return
		}
		for _, e := range found {
			c.setErr(e)
		}
	}()
}

// probeErrs checks, each on its own, the fields of st's form that differ from base
// (the last valid form; the first page's without one) and have no error named or
// known: base with that one field changed. It returns the errors of those fields.
func probeErrs(base Form, st State, named, known map[string]bool) []*FieldError {
	if base == nil {
		base = Cat.FirstPage
	}
	var found []*FieldError
	for _, k := range diffKeys(base, st.Form) {
		if named[k] || known[k] || strings.HasPrefix(k, "dev.") && st.Form["device"] != base["device"] {
			continue
		}
		f := base.Clone()
		if v, ok := st.Form[k]; ok {
			f[k] = v
		} else {
			delete(f, k)
		}
		if k == "device" { // a device comes with its own keys
			for dk := range f {
				if strings.HasPrefix(dk, "dev.") {
					delete(f, dk)
				}
			}
			for dk, v := range st.Form {
				if strings.HasPrefix(dk, "dev.") {
					f[dk] = v
				}
			}
		}
		var ck CheckedAll
		if Ask("check", wire.Check{State: State{Form: f, Mode: st.Mode, B: st.B, Seeds: st.Seeds}}, &ck) != nil {
			return found
		}
		for _, e := range ck.errs() {
			if e.Field == k {
				found = append(found, e)
			}
		}
	}
	return found
}

// diffKeys are the keys whose values differ between two forms, sorted.
func diffKeys(a, b Form) []string {
	var out []string
	for k, v := range b {
		if a[k] != v {
			out = append(out, k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// fieldErrs counts the input errors of the form's fields and of B's (not the case
// box's own name).
func (c *FormPanel) fieldErrs() int {
	n := 0
	for k := range c.Errs {
		if !keptErrs[k] {
			n++
		}
	}
	return n
}

// CaseNote says why the case box has no name (input errors; several disks, which
// a case name cannot carry), or what its name leaves out.
func (c *FormPanel) CaseNote() string {
	disks := len(DiskSpecs(c.Form["disks"])) + 1
	switch n := c.fieldErrs(); {
	case c.CaseBox == "" && n > 0:
		return fmt.Sprintf("no case name: %d input error%s", n, plural(n))
	case c.CaseBox == "" && disks > 1:
		return fmt.Sprintf("no case name: %d disks", disks)
	case disks > 1:
		return fmt.Sprintf("the case name sets disk 8:0 only: the form has %d disks", disks)
	}
	return ""
}
