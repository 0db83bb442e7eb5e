package ui

import (
	"strings"
)

// HelpPanel is the "?" panel: the full explanation of a card, a chart series, a
// kernel switch, a kernel preset or a Reproduce story. Hover and focus show the same
// text as a tooltip.
type HelpPanel struct {
	Key string // "series:dirty_MB", "card:write_bw", "wait:journal_commit", "switch:more_io_wait", "preset:6.1", "repro:wu2011"

	lab *Root
}

// Open shows key's explanation.
func (c *HelpPanel) Open(key string) { c.Key = key }

// Close hides the panel.
func (c *HelpPanel) Close() { c.Key = "" }

// HelpItem is a labelled line of the panel.
type HelpItem struct{ Label, Text string }

// Title and Items are the panel's content.
func (c *HelpPanel) Title() string { t, _ := HelpFor(c.Key); return t }
func (c *HelpPanel) Items() []HelpItem {
	_, it := HelpFor(c.Key)
	return it
}

// HelpFor is the title and lines explaining key (empty for an unknown key).
func HelpFor(key string) (string, []HelpItem) {
	kind, name, _ := strings.Cut(key, ":")
	docItems := func(d Doc) []HelpItem {
		var out []HelpItem
		for _, x := range []HelpItem{{"what", d.Meaning}, {"kernel", d.Kernel}, {"computed in", d.Function}, {"healthy", d.Healthy}, {"pathological", d.Bad}} {
			if x.Text != "" {
				out = append(out, x)
			}
		}
		return out
	}
	switch kind {
	case "series":
		if d, ok := SeriesDoc(name); ok {
			return Label(name), docItems(d)
		}
	case "wait": // where an editor's save spent its time (report.WaitDocs)
		if d, ok := waitDoc(name); ok {
			return "time in " + name, docItems(d)
		}
	case "card":
		if d, ok := CardDoc(name); ok {
			return strings.ReplaceAll(name, "_", " "), docItems(d)
		}
	case "switch":
		for _, sw := range Cat.Switches {
			if sw.Name == name {
				return "switch " + name, []HelpItem{{"what", sw.Doc}, {"models", sw.Models}, {"from", sw.Source}}
			}
		}
	case "preset":
		if doc, ok := Cat.KernelDocs[name]; ok {
			out := []HelpItem{{"what", doc}}
			if on := Cat.KernelOn[name]; len(on) > 0 {
				out = append(out, HelpItem{"switches on", strings.Join(on, ", ")})
			}
			return "kernel " + name, out
		}
	case "repro":
		if r, ok := ReproByID(name); ok {
			return r.Title, []HelpItem{{"what", r.Explain}, {"kernels", strings.Join(r.Kernels, " vs ")}}
		}
	}
	return "", nil
}
