package kernel

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// A switch is declared once, beside the code that reads it (as Go declares a
// GODEBUG setting once and counts its uses where it is read):
//
//	var swScaledChunk = declare(Switch{Name: "scaled_chunk", Order: 20, Doc: ..., Models: ..., Source: ...})
//	var pathChunkScaled = swScaledChunk.path("writeback_chunk_size.scaled", "...")
//
// and read as k.on(swScaledChunk) (a bit test); the path counts its decision
// point with k.Fired(pathChunkScaled) (an array increment). The table Switches,
// the overrides by name, the presets, switch_activity and UncountedSwitches all
// read these declarations. A filesystem's switches are declared in engine/fs
// with DeclareSwitch and DeclarePath; presets name them (variants.go).

// SwitchID is a declared switch: its bit in Variants.
type SwitchID uint8

// maxSwitches is the number of bits of Variants.
const maxSwitches = 128

// Switch is one kernel switch: a behaviour the source threads change, with where
// it comes from.
type Switch struct {
	Name   string // the Config "variants" key and the label in the CLI and the page
	Doc    string // one line: what the switch changes
	Models string // the kernel function(s) and version the switched-on behaviour models
	Source string // the commit or thread it comes from
	// Order places the switch in Switches (the order the page, --help and the
	// docs show): declarations run in package init order, this key does not.
	Order int
	// Uncounted says why the switch has no counted path ("": it has one);
	// UncountedSwitches lists these.
	Uncounted string
	// Aliases are former names, still read from overrides, JSON and links
	// (written back under Name).
	Aliases []string
	// ID is the switch's bit, set when it is declared.
	ID SwitchID
}

// Switches is the table of kernel switches, in the order the page shows them
// (Switch.Order). Every declaration adds its row.
var Switches []Switch

// UncountedSwitches names the switches with no counted path and why: compare
// cannot say of them that they never ran. Declarations with Uncounted fill it;
// TestEverySwitchCounted checks that every other switch decides a counted path.
var UncountedSwitches = map[string]string{}

// switchByID is the declarations by bit.
var switchByID []Switch

// declare adds sw to the table and gives it its bit.
func declare(sw Switch) SwitchID {
	if len(switchByID) >= maxSwitches {
		panic("kernel: more than maxSwitches switches")
	}
	for _, n := range append([]string{sw.Name}, sw.Aliases...) {
		if _, dup := LookupSwitch(n); dup || n == "" {
			panic(fmt.Sprintf("kernel: switch %q declared twice or without a name", n))
		}
	}
	sw.ID = SwitchID(len(switchByID))
	switchByID = append(switchByID, sw)
	i := sort.Search(len(Switches), func(i int) bool { return Switches[i].Order > sw.Order })
	Switches = append(Switches, Switch{})
	copy(Switches[i+1:], Switches[i:])
	Switches[i] = sw
	if sw.Uncounted != "" {
		UncountedSwitches[sw.Name] = sw.Uncounted
	}
	return sw.ID
}

// DeclareSwitch declares a switch of another package (a filesystem's): call it
// in a package-level var declaration.
func DeclareSwitch(sw Switch) SwitchID { return declare(sw) }

// Switch is the declaration of s.
func (s SwitchID) Switch() Switch { return switchByID[s] }

// LookupSwitch finds a switch by name or former name (Aliases).
func LookupSwitch(name string) (Switch, bool) {
	for _, sw := range switchByID {
		if sw.Name == name || slices.Contains(sw.Aliases, name) {
			return sw, true
		}
	}
	return Switch{}, false
}

// SwitchName is a switch's current name for name, which may be a former one
// ("bdi_knobs_v63" is "bdi_knobs_v62"); a name no switch has is returned as is.
func SwitchName(name string) string {
	if sw, ok := LookupSwitch(name); ok {
		return sw.Name
	}
	return name
}

// VariantNames lists the switch names, sorted.
func VariantNames() []string {
	out := make([]string, 0, len(switchByID))
	for _, sw := range switchByID {
		out = append(out, sw.Name)
	}
	sort.Strings(out)
	return out
}

// Variants are the kernel behaviours the source threads change: one bit per
// declared switch, and two block-layer numbers presets set. A kernel is a named
// set of switches (a preset); the model branches on switches, never on version
// strings. Variants are comparable.
type Variants struct {
	bits [maxSwitches / 64]uint64
	// WBTDepth is RWB_DEF_DEPTH (64 in the 2016 drafts, 16 merged; 0 = 16). Not a
	// switch: presets set it.
	WBTDepth int
	// MaxSectorsKB is BLK_DEF_MAX_SECTORS in KiB: 512 (1024 sectors) when 0, 1280
	// from v4.4 (commit d2be537c3ba3, "block: bump BLK_DEF_MAX_SECTORS to 2560").
	// Not a switch: presets set it.
	MaxSectorsKB int
}

// On reports whether switch s is on.
func (v Variants) On(s SwitchID) bool { return v.bits[s>>6&1]&(1<<(s&63)) != 0 }

// Set turns switch s on or off.
func (v *Variants) Set(s SwitchID, on bool) {
	if on {
		v.bits[s>>6&1] |= 1 << (s & 63)
	} else {
		v.bits[s>>6&1] &^= 1 << (s & 63)
	}
}

// With is v with the switches ss on.
func (v Variants) With(ss ...SwitchID) Variants {
	for _, s := range ss {
		v.Set(s, true)
	}
	return v
}

// on reports whether the kernel's switch s is on.
func (k *Kernel) on(s SwitchID) bool { return k.P.Variants.On(s) }

// Get reads a switch by name.
func (v Variants) Get(name string) (bool, bool) {
	sw, ok := LookupSwitch(name)
	if !ok {
		return false, false
	}
	return v.On(sw.ID), true
}

// Overrides set individual switches on top of a preset, by name.
type Overrides map[string]bool

// UnmarshalJSON reads the overrides, renaming a switch's former name to its
// current one (old saved configs and links keep working).
func (o *Overrides) UnmarshalJSON(b []byte) error {
	var m map[string]bool
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	if m == nil {
		*o = nil
		return nil
	}
	*o = make(Overrides, len(m))
	for k, v := range m {
		(*o)[SwitchName(k)] = v
	}
	return nil
}

// Validate checks that every name is a switch.
func (o Overrides) Validate() error {
	for _, k := range sortedNames(o) {
		if _, ok := LookupSwitch(k); !ok {
			return fmt.Errorf("%q is not a kernel switch (switches: %s)", k, strings.Join(VariantNames(), ", "))
		}
	}
	return nil
}

// Apply returns v with the overrides set.
func (o Overrides) Apply(v Variants) (Variants, error) {
	if err := o.Validate(); err != nil {
		return v, err
	}
	for k, b := range o {
		sw, _ := LookupSwitch(k)
		v.Set(sw.ID, b)
	}
	return v, nil
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// PathID is a counted path: code whose behaviour a switch decides.
type PathID uint8

// maxPaths bounds the counted paths (a PathID indexes an array of this size).
const maxPaths = 256

// ActivityPath describes one counted path: its name in switch_activity, what it
// counts and the switches that decide what it does.
type ActivityPath struct {
	Name     string
	Doc      string
	Switches []string
}

// paths are the declared counted paths by PathID.
var paths []ActivityPath

// path declares a counted path that s (and also) decide.
func (s SwitchID) path(name, doc string, also ...SwitchID) PathID {
	names := []string{s.Switch().Name}
	for _, a := range also {
		names = append(names, a.Switch().Name)
	}
	if len(paths) >= maxPaths {
		panic("kernel: more than maxPaths counted paths")
	}
	paths = append(paths, ActivityPath{Name: name, Doc: doc, Switches: names})
	return PathID(len(paths) - 1)
}

// DeclarePath declares a counted path of another package (a filesystem's) that
// s (and also) decide; it counts with Kernel.Fired.
func (s SwitchID) DeclarePath(name, doc string, also ...SwitchID) PathID {
	return s.path(name, doc, also...)
}
