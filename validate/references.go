package validate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"sync"
)

// BundleName is the file the build writes the committed reference logs to for the
// page's engine worker (static/references.gz, wasm/prerender): the
// references/NAME.log.gz files as they are, one after another (a multi-member gzip
// file; each member names its log, NAME.log). The js/wasm build embeds no logs: the
// worker fetches this file when a question first needs them (SetReferenceBundle).
const BundleName = "references.gz"

var (
	bundleMu   sync.Mutex
	loadBundle func() ([]byte, error)
)

// SetReferenceBundle makes References read the logs from the bundle load returns
// (BundleName's format) instead of the build's own: the engine worker sets a fetch of
// static/references.gz at start. References calls load each time (callers keep what
// they parsed); nil restores the build's own (embedded natively, none in js/wasm).
func SetReferenceBundle(load func() ([]byte, error)) {
	bundleMu.Lock()
	loadBundle = load
	bundleMu.Unlock()
}

// References parses the committed reference logs, sorted by name: from the bundle
// SetReferenceBundle names, else from the build's own (references_embed.go).
func References() ([]*Log, error) {
	bundleMu.Lock()
	load := loadBundle
	bundleMu.Unlock()
	if load == nil {
		return embeddedReferences()
	}
	b, err := load()
	if err != nil {
		return nil, err
	}
	return ReadBundle(bytes.NewReader(b))
}

// ReadBundle parses a bundle of logs (BundleName's format), sorted by name.
func ReadBundle(r io.Reader) ([]*Log, error) {
	br := bufio.NewReader(r)
	if b, err := br.Peek(2); err != nil || b[0] != 0x1f || b[1] != 0x8b {
		return nil, fmt.Errorf("%s: not gzip data (a server that sends it with Content-Encoding has decoded it)", BundleName)
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", BundleName, err)
	}
	var logs []*Log
	for {
		zr.Multistream(false)
		name, ok := strings.CutSuffix(zr.Name, ".log")
		if !ok {
			return nil, fmt.Errorf("%s: member %d is named %q, not NAME.log", BundleName, len(logs)+1, zr.Name)
		}
		l, err := ReadLog(name, zr)
		if err != nil {
			return nil, err
		}
		if _, err := io.Copy(io.Discard, zr); err != nil { // the member's end and checksum
			return nil, fmt.Errorf("%s: %s: %w", BundleName, name, err)
		}
		logs = append(logs, l)
		if err := zr.Reset(br); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: after %s: %w", BundleName, name, err)
		}
	}
	sort.Slice(logs, func(i, j int) bool { return logs[i].Name < logs[j].Name })
	return logs, nil
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
