package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
)

// TestPresetBlockLayer: the kernel preset, not the device, decides the block
// layer; the device only caps the request size and picks the scheduler.
func TestPresetBlockLayer(t *testing.T) {
	tests := []struct {
		kernel, device          string
		maxKB, nr, plug         int
		mq, wbt, draft, qd1, v6 bool
		depth                   int
	}{
		{"3.1.0-rc9-ioless-full", "kara2016-qd1", 512, 128, 16, false, false, false, false, false, 16},
		{"3.1.0-rc9-ioless-full", "nvme", 512, 128, 16, false, false, false, false, false, 16},
		{"4.6", "wu2011-hdd", 1280, 128, 16, false, false, false, false, false, 16},
		{"4.6+wbt", "kara2016-qd1", 1280, 128, 16, false, true, true, false, false, 64},
		{"4.6+wbt+qd1", "kara2016-qd1", 1280, 128, 16, false, true, true, true, false, 64},
		{"6.1", "wu2011-hdd", 1280, 62, 32, true, true, false, true, true, 16},
		{"6.1", "nvme", 1280, 1023, 32, true, true, false, true, true, 16},
		{"6.1", "usb2-stick", 120, 4, 32, true, true, false, true, true, 16},
		{"2.6.30-rc6", "usb3-hdd", 512, 128, 16, false, false, false, false, false, 16},
		{"6.1", "usb3-hdd", 1024, 4, 32, true, true, false, true, true, 16},
	}
	for _, tc := range tests {
		p, err := LookupPreset(tc.kernel)
		require.NoError(t, err)
		hw, err := devices.Preset(tc.device)
		require.NoError(t, err)
		hw.Elevator = ElevatorFor(p.Variants, hw.Elevator)
		b := p.Variants.Block(hw)
		name := tc.kernel + " on " + tc.device
		assert.Equal(t, []int{tc.maxKB, tc.nr, tc.plug, tc.depth}, []int{b.MaxSectorsKB, b.NrRequests, b.PlugCount, b.WBTDepth}, name)
		assert.Equal(t, []bool{tc.mq, tc.wbt, tc.draft, tc.qd1, tc.v6}, []bool{b.BlkMQ, b.WBT, b.WBTDraft, b.WBTQD1, b.WBTV6}, name)
		require.NoError(t, b.Validate(), name)
	}
	v6, _ := LookupPreset("6.1")
	assert.Equal(t, devices.ElevatorDeadline, ElevatorFor(v6.Variants, devices.ElevatorCFQ), "cfq is gone in v6: mq-deadline")
	old, _ := LookupPreset("2.6.36-rc1")
	assert.Equal(t, devices.ElevatorCFQ, ElevatorFor(old.Variants, devices.ElevatorCFQ))
}
