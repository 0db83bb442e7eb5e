package ui

import (
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

	lab *Root
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
	if id == "device" { // a new preset: its own keys and values
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
