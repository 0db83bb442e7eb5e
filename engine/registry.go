package engine

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
)

// The registries the CLI and the page read, re-exported so that they reach the
// model through engine (and harness, repro) only. Each is one table in its
// package: kernel.Presets (engine/kernel/variants.go) and kernel.Switches (each
// switch's declaration, beside its code: engine/kernel/switch.go), devices' presets and parameters (devices/spec.go), fs.Models
// (engine/fs/registry.go), Columns (series.go).
type (
	KernelPreset = kernel.Preset
	Switch       = kernel.Switch
	Variants     = kernel.Variants
	Overrides    = kernel.Overrides
	ActivityPath = kernel.ActivityPath
	DeviceSpec   = devices.Spec
	DeviceParam  = devices.ParamInfo
	// BlockOverrides change keys of the kernel's block layer (DiskConfig.Block).
	BlockOverrides = devices.BlockOverrides
	// Block is the block layer in front of a device.
	Block = devices.Block
)

// KernelPresets lists the kernel presets.
func KernelPresets() []KernelPreset { return kernel.Presets() }

// LookupKernel finds a kernel preset by name (see kernel.LookupPreset).
func LookupKernel(name string) (KernelPreset, error) { return kernel.LookupPreset(name) }

// DefaultKernel is the kernel preset DefaultConfig uses.
const DefaultKernel = kernel.DefaultPreset

// Switches is the kernel switch table.
func Switches() []Switch { return kernel.Switches }

// SwitchNames lists the kernel switch names, sorted.
func SwitchNames() []string { return kernel.VariantNames() }

// ActivityPaths lists the switch-guarded paths Result.SwitchActivity counts.
func ActivityPaths() []ActivityPath { return kernel.ActivityPaths() }

// NeverRan lists the switches in which a and b differ whose paths ran in neither
// run (see kernel.NeverRan).
func NeverRan(a, b Variants, actA, actB map[string]int64) []string {
	return kernel.NeverRan(a, b, actA, actB)
}

// DevicePresets lists the device presets, sorted by name.
func DevicePresets() []DeviceSpec { return devices.Presets() }

// DevicePreset returns the named device preset.
func DevicePreset(name string) (DeviceSpec, error) { return devices.Preset(name) }

// ParseDevice parses "NAME[,key=value...]": the device's hardware keys and the
// block-layer keys that override the kernel's (see devices.ParseSpec).
func ParseDevice(text string) (DeviceSpec, BlockOverrides, error) { return devices.ParseSpec(text) }

// KernelBlock is the block layer the named kernel preset puts in front of d, with
// no overrides (what an empty block key in the page shows).
func KernelBlock(kernelName string, d DeviceSpec) (devices.Block, error) {
	p, err := kernel.LookupPreset(kernelName)
	if err != nil {
		return devices.Block{}, err
	}
	return p.Variants.Block(d), nil
}

// DeviceParams lists the device override keys of model ("" = all) with doc and range.
func DeviceParams(model string) []DeviceParam { return devices.Params(model) }

// DeviceKeys lists every device override key.
func DeviceKeys() []string { return devices.Keys() }

// ParseBytes parses sizes like 512, 4k, 60MiB, 1G.
func ParseBytes(v string) (int64, error) { return devices.ParseBytes(v) }

// The writeback lists a Detail sample's inode was on (kernel.OnB*), and the
// pause histogram's bucket count (kernel.PauseBuckets).
const (
	OnBDirty      = kernel.OnBDirty
	OnBIO         = kernel.OnBIO
	OnBMoreIO     = kernel.OnBMoreIO
	OnBMoreIOWait = kernel.OnBMoreIOWait
	PauseBuckets  = kernel.PauseBuckets
)
