//go:build js && wasm

package validate

import "fmt"

// embeddedReferences: the js/wasm build embeds no logs (the engine worker sets
// SetReferenceBundle to a fetch of BundleName).
func embeddedReferences() ([]*Log, error) {
	return nil, fmt.Errorf("this build embeds no reference logs: it reads %s (validate.SetReferenceBundle)", BundleName)
}

// References612: the js/wasm build embeds no logs, the 6.12 ones neither.
func References612() ([]*Log, error) {
	return nil, fmt.Errorf("this build embeds no reference logs (the 6.12 ones are in native builds only)")
}
