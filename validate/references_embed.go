//go:build !(js && wasm)

package validate

import (
	"embed"
	"io"
	"io/fs"
	"strings"
)

// The committed reference logs (validate/qemu/run-matrix.sh writes them), embedded in
// native builds (wblab validate, the tests, wasm/prerender). The js/wasm build (the
// page's engine worker) leaves them out and fetches BundleName (references_js.go).
//
//go:embed references/*.log.gz
var referenceFS embed.FS

// The references measured on the 6.12 kernel (Kernel612), apart from the 6.1 ones:
// the page's bundle and the accuracy table are the 6.1 preset's.
//
//go:embed references-6.12/*.log.gz
var reference612FS embed.FS

// References612 are the committed logs of the real 6.12 kernel (wblab validate
// --kernel 6.12).
func References612() ([]*Log, error) {
	sub, err := fs.Sub(reference612FS, "references-6.12")
	if err != nil {
		return nil, err
	}
	return readLogs(sub)
}

func embeddedReferences() ([]*Log, error) {
	sub, err := fs.Sub(referenceFS, "references")
	if err != nil {
		return nil, err
	}
	return readLogs(sub)
}

// WriteBundle writes the embedded logs as BundleName's bundle: each
// references/NAME.log.gz as it is, in name order (./build.sh build, wasm/prerender).
func WriteBundle(w io.Writer) error {
	entries, err := fs.ReadDir(referenceFS, "references")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".log.gz") {
			continue
		}
		b, err := referenceFS.ReadFile("references/" + e.Name())
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
