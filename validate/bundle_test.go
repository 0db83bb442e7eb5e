//go:build !(js && wasm)

package validate

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBundleIsTheReferences: the page's bundle (static/references.gz, WriteBundle)
// parses to the embedded logs, each member named as its file; a bundle SetReferenceBundle
// names is what References reads, and a failed load is References' error.
func TestBundleIsTheReferences(t *testing.T) {
	want, err := References()
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, WriteBundle(&b))
	got, err := ReadBundle(bytes.NewReader(b.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, want, got)

	SetReferenceBundle(func() ([]byte, error) { return b.Bytes(), nil })
	defer SetReferenceBundle(nil)
	got, err = References()
	require.NoError(t, err)
	assert.Equal(t, want, got)
	SetReferenceBundle(func() ([]byte, error) { return nil, errors.New("references.gz: HTTP 404") })
	_, err = References()
	assert.EqualError(t, err, "references.gz: HTTP 404")
}

// TestReadBundleErrors: what a bundle that is not one says.
func TestReadBundleErrors(t *testing.T) {
	var full bytes.Buffer
	require.NoError(t, WriteBundle(&full))
	plain, err := io.ReadAll(gzipReader(t, full.Bytes()))
	require.NoError(t, err)
	var unnamed bytes.Buffer
	zw := gzip.NewWriter(&unnamed)
	_, _ = zw.Write(plain[:1000])
	require.NoError(t, zw.Close())
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"decoded by the server's Content-Encoding", plain, "references.gz: not gzip data"},
		{"empty", nil, "references.gz: not gzip data"},
		{"a member without its name", unnamed.Bytes(), `references.gz: member 1 is named "", not NAME.log`},
		{"cut short", full.Bytes()[:full.Len()/2], "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadBundle(bytes.NewReader(tc.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func gzipReader(t *testing.T, b []byte) io.Reader {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	require.NoError(t, err)
	return zr
}
