package lab

import (
	"fmt"
	"strings"
	"sync"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/harness"
	"github.com/wblab/wblab/ui/wire"
)

var (
	catalogOnce sync.Once
	catalog     *wire.Catalog
)

// NewCatalog is what the page shows of the engine's registries, read from each
// one's table (kernel presets and switches, device presets and keys, filesystems,
// series docs, reproductions, the thread's tables, the measured references).
func NewCatalog() *wire.Catalog {
	catalogOnce.Do(func() { catalog = newCatalog() })
	return catalog
}

func newCatalog() *wire.Catalog {
	c := &wire.Catalog{
		Fields:       Fields(""),
		DeviceFields: map[string][]wire.Field{},
		Options:      map[string][]string{},
		KernelDocs:   map[string]string{}, DeviceDocs: map[string]string{}, DeviceModels: map[string]string{},
		KernelOn:     map[string][]string{},
		DeviceValues: map[string]map[string]string{},
		BlockValues:  map[string]map[string]string{},
		ActivityDocs: map[string]string{},
		SeriesDocs:   map[string]report.Doc{},
		Repros:       Repros(),
		Tables:       Tables(),
		FirstPage:    FormFromConfig(engine.FirstPageConfig()),
		Default:      FormFromConfig(engine.DefaultConfig()),
		PauseBuckets: engine.PauseBuckets,
		OnBDirty:     engine.OnBDirty, OnBIO: engine.OnBIO, OnBMoreIO: engine.OnBMoreIO, OnBMoreIOWait: engine.OnBMoreIOWait,
	}
	c.FirstPageJSON = FirstPageConfigJSON()
	// the state the page opens with: the first page's form, B's kernel A's
	// (ui.FormPanel.apply), one seed (ui.TestFirstPageCheckIsThePagesState)
	first := State{Form: c.FirstPage.Clone(), B: wire.Form{"kernel": c.FirstPage["kernel"]}, Seeds: 1}
	c.FirstPageCheck = wire.FirstCheck{State: first, Checked: Check(first)}
	for _, id := range []string{"fs", "hz", "device", "kernel"} {
		c.Options[id] = Options(id)
	}
	kernels := engine.KernelPresets()
	for _, p := range kernels {
		c.KernelDocs[p.Name] = p.Doc
		for _, sw := range engine.Switches() {
			if p.Variants.On(sw.ID) {
				c.KernelOn[p.Name] = append(c.KernelOn[p.Name], sw.Name)
			}
		}
	}
	for _, s := range engine.DevicePresets() {
		c.DeviceDocs[s.Name] = s.Doc
		c.DeviceModels[s.Name] = s.Model
		if _, ok := c.DeviceFields[s.Model]; !ok {
			for _, f := range Fields(s.Model) {
				if strings.HasPrefix(f.ID, "dev.") {
					c.DeviceFields[s.Model] = append(c.DeviceFields[s.Model], f)
				}
			}
		}
		c.DeviceValues[s.Name] = DeviceValues(s)
		for _, p := range kernels {
			if blk, err := engine.KernelBlock(p.Name, s); err == nil {
				c.BlockValues[wire.PlaceholderKey(s.Name, p.Name)] = BlockValues(blk)
			}
		}
	}
	for _, sw := range engine.Switches() {
		c.Switches = append(c.Switches, wire.Switch{Name: sw.Name, Doc: sw.Doc, Models: sw.Models, Source: sw.Source})
	}
	for _, p := range engine.ActivityPaths() {
		c.ActivityDocs[p.Name] = p.Doc + " (switches: " + strings.Join(p.Switches, ", ") + ")"
	}
	names := append(engine.SeriesNames(), report.SeriesDocNames()...)
	for _, n := range names {
		if d, ok := engine.SeriesDoc(n); ok {
			c.SeriesDocs[n] = d
		}
	}
	for _, col := range engine.DiskSeries {
		if d, ok := engine.DiskSeriesDoc(col.Name); ok {
			c.SeriesDocs[d.Name] = d
		}
	}
	for _, fs := range engine.Filesystems() {
		for _, dd := range []int{1, 2, 10} {
			c.MatrixCases = append(c.MatrixCases, fmt.Sprintf("thresh=100M/%s-%ddd-4k-8p-4096M-100M:10-X", fs, dd))
		}
	}
	c.SweepFilesystems, c.SweepThresholdsMB, c.SweepWriters = harness.SweepFilesystems, harness.SweepThresholdsMB, harness.SweepWriters
	return c
}
