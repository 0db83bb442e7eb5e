package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ShareBar holds the share link, the embed snippet, the exports and the notice line.
type ShareBar struct {
	Text   string // the shown share link / embed snippet
	Notice string

	lab *Root
}

// ShareLink shows the page's link with the current state.
func (c *ShareBar) ShareLink() {
	c.Text = PageURL() + "#" + EncodeHash(c.lab.state())
	Copy(c.Text)
	c.Notice = "link copied"
}

// EmbedSnippet shows an iframe snippet for the current state in embed mode.
func (c *ShareBar) EmbedSnippet() {
	st := c.lab.state()
	st.Embed = true
	c.Text = fmt.Sprintf(`<iframe src="%s#%s" width="900" height="640" style="border:0" title="wblab"></iframe>`, PageURL(), EncodeHash(st))
	c.Notice = "embed snippet"
}

// Export downloads A's results in a format: json, csv or trace.
func (c *ShareBar) Export(kind string) {
	a := c.lab.Results.A
	if a == nil || a.Res == nil {
		c.Notice = "nothing to export yet"
		return
	}
	var b bytes.Buffer
	name := "wblab-" + strings.NewReplacer("/", "_", "=", "-", ":", "-").Replace(a.Res.Case)
	switch kind {
	case "json":
		e := json.NewEncoder(&b)
		e.SetIndent("", " ")
		_ = e.Encode(a.Res)
		Download(name+".json", "application/json", b.String())
	case "csv":
		_ = a.Res.WriteSeriesCSV(&b)
		Download(name+".csv", "text/csv", b.String())
	case "trace":
		if a.Trace == "" {
			c.Notice = `no trace: tick "record trace" and run again`
			return
		}
		Download(name+".trace.txt", "text/plain", a.Trace)
	}
}
