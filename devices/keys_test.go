package devices

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestParamsHoldTheirField: every hardware key's row holds a pointer to its own
// Spec field (the row is the whole declaration of a key), and no two keys of a
// model share one.
func TestParamsHoldTheirField(t *testing.T) {
	var s Spec
	seen := map[string]map[any]string{}
	for _, p := range params() {
		if p.block {
			continue
		}
		if !assert.NotNil(t, p.field, p.key) {
			continue
		}
		f := p.field(&s)
		switch f.(type) {
		case *int, *int64, *bool, *string:
		default:
			t.Errorf("%s: field %T is not a settable kind", p.key, f)
		}
		for _, m := range []string{ModelSimple, ModelHDD, ModelSSD, ModelNVMe, ModelCapped} {
			if !p.applies(m) {
				continue
			}
			if seen[m] == nil {
				seen[m] = map[any]string{}
			}
			if other, dup := seen[m][f]; dup {
				t.Errorf("%s: keys %s and %s set the same field", m, other, p.key)
			}
			seen[m][f] = p.key
		}
	}
}
