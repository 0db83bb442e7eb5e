//go:build !(js && wasm)

package site

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHandlerServesPrecompressedSiblings(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"index.html": "<p>lab</p>", "main.wasm": "\x00asm-raw", "main.wasm.br": "br-bytes", "main.wasm.gz": "gz-bytes",
		"only-gz.js": "js", "only-gz.js.gz": "js-gz", "plain.css": "p{}",
		"references.gz": "\x1f\x8bmembers",
	}
	for n, c := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644))
	}
	srv := httptest.NewServer(Handler(dir))
	defer srv.Close()
	for _, tc := range []struct {
		path, accept           string
		body, ctype, enc, vary string
	}{
		{"/main.wasm", "gzip, deflate, br", "br-bytes", "application/wasm", "br", "Accept-Encoding"},
		{"/main.wasm", "gzip, deflate", "gz-bytes", "application/wasm", "gzip", "Accept-Encoding"},
		{"/main.wasm", "br;q=0, gzip;q=0.5", "gz-bytes", "application/wasm", "gzip", "Accept-Encoding"},
		{"/main.wasm", "*", "br-bytes", "application/wasm", "br", "Accept-Encoding"},
		{"/main.wasm", "", "\x00asm-raw", "application/wasm", "", "Accept-Encoding"},
		{"/main.wasm", "identity", "\x00asm-raw", "application/wasm", "", "Accept-Encoding"},
		{"/only-gz.js", "br, gzip", "js-gz", "text/javascript; charset=utf-8", "gzip", "Accept-Encoding"},
		{"/plain.css", "br, gzip", "p{}", "text/css; charset=utf-8", "", ""},
		// gzip data served as it is: the worker reads the members' names (validate.ReadBundle)
		{"/references.gz", "br, gzip", "\x1f\x8bmembers", "application/gzip", "", ""},
		{"/", "br, gzip", "<p>lab</p>", "text/html; charset=utf-8", "", ""},
	} {
		t.Run(tc.path+" "+tc.accept, func(t *testing.T) {
			req, _ := http.NewRequest("GET", srv.URL+tc.path, nil)
			req.Header.Set("Accept-Encoding", tc.accept) // set: the client adds no gzip of its own
			resp, err := http.DefaultTransport.RoundTrip(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b := make([]byte, 64)
			n, _ := resp.Body.Read(b)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, tc.body, string(b[:n]))
			assert.Equal(t, tc.ctype, resp.Header.Get("Content-Type"))
			assert.Equal(t, tc.enc, resp.Header.Get("Content-Encoding"))
			assert.Equal(t, tc.vary, resp.Header.Get("Vary"))
			assert.Equal(t, CacheControl, resp.Header.Get("Cache-Control"))
			assert.NotEmpty(t, resp.Header.Get("ETag"))
		})
	}
}

func TestHandlerRevalidatesAndRefuses(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.wasm"), []byte("raw"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.wasm.br"), []byte("br"), 0o644))
	srv := httptest.NewServer(Handler(dir))
	defer srv.Close()
	get := func(method, path, accept, inm string) *http.Response {
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		req.Header.Set("Accept-Encoding", accept)
		if inm != "" {
			req.Header.Set("If-None-Match", inm)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	br, raw := get("GET", "/main.wasm", "br", ""), get("GET", "/main.wasm", "", "")
	require.NotEqual(t, br.Header.Get("ETag"), raw.Header.Get("ETag"), "each encoding has its own ETag")
	assert.Equal(t, http.StatusNotModified, get("GET", "/main.wasm", "br", br.Header.Get("ETag")).StatusCode)
	assert.Equal(t, http.StatusOK, get("GET", "/main.wasm", "", br.Header.Get("ETag")).StatusCode)
	assert.Equal(t, http.StatusNotFound, get("GET", "/nope.wasm", "br", "").StatusCode)
	assert.Equal(t, http.StatusNotFound, get("GET", "/../site.go", "", "").StatusCode)
	assert.Equal(t, http.StatusMethodNotAllowed, get("POST", "/main.wasm", "", "").StatusCode)
}
