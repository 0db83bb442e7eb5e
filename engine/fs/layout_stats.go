package fs

import "github.com/wblab/wblab/engine/kernel"

// mappedInode is the per-inode state of a filesystem that keeps a block map.
type mappedInode interface{ blockMap() *fileMap }

// fileMapOf returns the block map of a file, or nil (generic has none).
func fileMapOf(in *kernel.Inode) *fileMap {
	if m, ok := in.FS.(mappedInode); ok {
		return m.blockMap()
	}
	return nil
}

// LayoutStats summarises where the files of k live: extents per file and the mean
// extent length in MB (nil maps, e.g. generic, report zeros).
func LayoutStats(k *kernel.Kernel) (extentsPerFile, meanExtentMB float64) {
	var ext, pages int64
	files := 0
	for _, in := range k.Inodes() {
		m := fileMapOf(in)
		if m == nil {
			continue
		}
		files++
		ext += int64(len(m.ext))
		pages += m.allocEnd
	}
	if files == 0 || ext == 0 {
		return 0, 0
	}
	return float64(ext) / float64(files), float64(pages) / 256 / float64(ext)
}
