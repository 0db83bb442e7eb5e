package fs

import (
	"fmt"
	"strings"

	"github.com/wblab/wblab/engine/kernel"
)

// Model is one filesystem model: its name (Config "fs", the case name's first
// field), one line for --help and the page, and its constructor. Counters come
// from the model's StatsReporter, extent counts from its inodes' block maps
// (LayoutStats); adding a filesystem is its file plus one row here.
type Model struct {
	Name string
	Doc  string
	New  func() kernel.Filesystem
}

// Models is the table of filesystem models.
var Models = []Model{
	{"generic", "no journal, no delalloc: blocks allocated at write(), generic_writepages, one page per ->writepage",
		func() kernel.Filesystem { return NewGeneric() }},
	{"ext3", "v3.2 ext3, data=ordered: jbd journal (kjournald writes ordered data at commit), write_cache_pages",
		func() kernel.Filesystem { return NewExt3() }},
	{"ext4", "v3.2 ext4: delalloc, ext4_da_writepages with the nr_to_write bump, mballoc windows, jbd2",
		func() kernel.Filesystem { return NewExt4() }},
	{"xfs", "v3.2 XFS (allocsize=1g): delalloc, clustering ->writepage, ILOCK trylocks, xfsdatad ioend completion",
		func() kernel.Filesystem { return NewXfs() }},
	{"btrfs", "v3.2 btrfs: COW extents at writeback, worker threads for checksums and ordered extents, transactions",
		func() kernel.Filesystem { return NewBtrfs() }},
}

// Names lists the filesystem model names, in table order.
func Names() []string {
	out := make([]string, len(Models))
	for i, m := range Models {
		out[i] = m.Name
	}
	return out
}

// New returns the named filesystem model.
func New(name string) (kernel.Filesystem, error) {
	for _, m := range Models {
		if m.Name == name {
			return m.New(), nil
		}
	}
	return nil, fmt.Errorf("fs: %q is not modelled (models: %s)", name, strings.Join(Names(), ", "))
}
