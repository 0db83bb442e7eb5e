package validate

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// The committed reference logs (validate/qemu/run-matrix.sh writes them).
//
//go:embed references/*.log.gz
var referenceFS embed.FS

// References parses the committed reference logs, sorted by name.
func References() ([]*Log, error) {
	sub, err := fs.Sub(referenceFS, "references")
	if err != nil {
		return nil, err
	}
	return readLogs(sub)
}

// ReadDir parses the *.log.gz and *.log files of a directory (a fresh measurement).
func ReadDir(dir string) ([]*Log, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	return readLogs(os.DirFS(dir))
}

func readLogs(fsys fs.FS) ([]*Log, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var logs []*Log
	for _, e := range entries {
		n := e.Name()
		name, ok := strings.CutSuffix(n, ".log.gz")
		if !ok {
			if name, ok = strings.CutSuffix(n, ".log"); !ok {
				continue
			}
		}
		f, err := fsys.Open(n)
		if err != nil {
			return nil, err
		}
		l, err := ReadLog(name, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		logs = append(logs, l)
	}
	if len(logs) == 0 {
		return nil, fmt.Errorf("no *.log or *.log.gz files")
	}
	sort.Slice(logs, func(i, j int) bool { return logs[i].Name < logs[j].Name })
	return logs, nil
}
