package devices

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
)

func TestPresets(t *testing.T) {
	want := []string{"capped", "chinner2010-vm", "kara2016-qd1", "nvme", "simple", "usb2-stick", "usb3-hdd", "wu2011-hdd", "x25e"}
	var names []string
	for _, s := range Presets() {
		names = append(names, s.Name)
		require.NoError(t, s.Validate(), s.Name)
		assert.NotEmpty(t, s.Doc, s.Name)
		assert.NotContains(t, s.Doc, "\n", "one line")
		w := sim.NewWorld(1000, 1)
		q, err := New(w, s)
		require.NoError(t, err, s.Name)
		assert.Equal(t, s, q.Spec())
		// JSON round trip (the engine's Config embeds Spec as "device")
		b, err := json.Marshal(s)
		require.NoError(t, err)
		var back Spec
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Equal(t, s, back)
		// String round trip
		assert.Equal(t, s.Name, s.String(), "a preset prints as its name")
	}
	assert.Equal(t, want, names)

	tests := []struct {
		name                   string
		maxKB, plug, nr, qd    int
		mq, wbt, rot           bool
		model                  string
		minWriteBps, maxReadNs int64
	}{
		{"simple", 512, 16, 128, 31, false, false, true, ModelSimple, 60 << 20, 0},
		{"wu2011-hdd", 512, 16, 128, 31, false, false, true, ModelHDD, 0, 0},
		{"kara2016-qd1", 1280, 16, 128, 1, false, true, true, ModelHDD, 0, 0},
		{"nvme", 1280, 32, 1023, 1023, true, true, false, ModelNVMe, 0, 0},
		{"x25e", 512, 16, 128, 32, false, false, false, ModelSSD, 0, 0},
		{"capped", 1280, 32, 256, 128, true, true, false, ModelCapped, 0, 0},
		{"chinner2010-vm", 512, 16, 128, 128, false, false, true, ModelNVMe, 1_500_000_000, 0},
	}
	for _, tc := range tests {
		s, err := Preset(tc.name)
		require.NoError(t, err)
		assert.Equal(t, tc.model, s.Model, tc.name)
		assert.Equal(t, tc.maxKB, s.MaxSectorsKB, tc.name)
		assert.Equal(t, tc.plug, s.PlugCount, tc.name)
		assert.Equal(t, tc.nr, s.NrRequests, tc.name)
		assert.Equal(t, tc.qd, s.QueueDepth, tc.name)
		assert.Equal(t, tc.mq, s.BlkMQ, tc.name)
		assert.Equal(t, tc.wbt, s.WBT, tc.name)
		assert.Equal(t, tc.rot, s.Rotational, tc.name)
		if tc.minWriteBps > 0 {
			assert.GreaterOrEqual(t, s.BandwidthBps, tc.minWriteBps, tc.name)
		}
	}
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"nosuch", []string{"unknown preset", "nvme", "wu2011-hdd"}},
		{"simple,qd=0", []string{"qd=\"0\"", "out of range", "[1, 65536]", "keys: qd,"}},
		{"simple,foo=1", []string{"unknown key \"foo\"", "model simple", "keys: ", "req_us"}},
		{"simple,rpm=7200", []string{"unknown key \"rpm\"", "model simple"}},
		{"simple,bw=fast", []string{"bw=\"fast\"", "want a size", "[1MiB/s, 1TiB/s]"}},
		{"simple,qd", []string{"not key=value", "keys: "}},
		{"wu2011-hdd,seek_avg_us=20000", []string{"device.seek_avg_us", "out of range"}},
		{"wu2011-hdd,bw_inner=200MB", []string{"bw_inner", "must not exceed"}},
		{"x25e,elevator=bfq", []string{"elevator=\"bfq\"", "deadline|noop|cfq"}},
		{"nvme,wbt=maybe", []string{"wbt=\"maybe\"", "on|off"}},
		{"nvme,req_us=-3", []string{"req_us=\"-3\"", "[0, 1000000] us"}},
		{"capped,iops=x", []string{"iops=\"x\"", "want an integer"}},
	}
	for _, tc := range tests {
		_, err := ParseSpec(tc.in)
		require.Error(t, err, tc.in)
		for _, w := range tc.want {
			assert.Contains(t, err.Error(), w, tc.in)
		}
	}
}

func TestParseSpecOverrides(t *testing.T) {
	s, err := ParseSpec("simple,bw=100MiB,qd=1,req_us=50")
	require.NoError(t, err)
	assert.Equal(t, int64(100<<20), s.BandwidthBps)
	assert.Equal(t, 1, s.QueueDepth)
	assert.Equal(t, int64(50_000), s.RequestNs)
	assert.Equal(t, "simple,qd=1,bw=100MiB,req_us=50", s.String())

	s, err = ParseSpec("x25e,qd=1,req_us=12.5,bw=200MB,wbt=on,wbt_lat_us=2500")
	require.NoError(t, err)
	assert.Equal(t, int64(12_500), s.RequestNs)
	assert.Equal(t, int64(200_000_000), s.BandwidthBps, "MB is decimal for rates")
	assert.True(t, s.WBT)
	assert.Equal(t, int64(2_500_000), s.WBTLatNs)
	back, err := ParseSpec(s.String())
	require.NoError(t, err)
	assert.Equal(t, s, back, s.String())

	s, err = ParseSpec("capped,bw=50MiB,iops=3000,burst_ms=250")
	require.NoError(t, err)
	assert.Equal(t, int64(50<<20), s.BandwidthBps)
	assert.Equal(t, int64(3000), s.IOPS)
	assert.Equal(t, int64(250*sim.Millisecond), s.BurstNs)

	s, err = ParseSpec("nvme,wbt_lat_us=0")
	require.NoError(t, err)
	assert.False(t, s.WBT, "wbt_lat_us=0 disables wbt as in sysfs")

	// every key of every model accepts its own minimum and maximum
	for _, p := range params() {
		for _, m := range strings.Fields(allModels) {
			if !p.applies(m) {
				continue
			}
			s := Spec{Name: "x", Model: m}
			switch p.kind {
			case kEnum:
				require.NoError(t, s.Set(p.key, p.enum[0]))
			case kBool:
				require.NoError(t, s.Set(p.key, "on"), p.key)
				require.NoError(t, s.Set(p.key, "off"), p.key)
			default:
				for _, v := range []int64{p.min, p.max} {
					txt := p.show(v)
					if p.kind == kRate {
						txt = strings.TrimSuffix(txt, "/s")
					}
					require.NoError(t, s.Set(p.key, txt), "%s %s=%s", m, p.key, txt)
					assert.Equal(t, v, s.get(p), "%s %s=%s", m, p.key, txt)
				}
			}
		}
	}
	assert.Contains(t, Keys(), "rpm")
	assert.Contains(t, Keys(), "iops")
	assert.NotContains(t, KeysFor(ModelSimple), "rpm")
	for _, k := range []string{"bw", "iops", "burst_ms", "qd", "wbt", "wbt_lat_us"} {
		assert.Contains(t, KeysFor(ModelCapped), k)
	}
}

func TestValidateNamesField(t *testing.T) {
	s, _ := Preset("wu2011-hdd")
	s.RPM = 100
	err := s.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "device.rpm")
	assert.Contains(t, err.Error(), "\"rpm\"")
	assert.Contains(t, err.Error(), "[1000, 20000]")
	s, _ = Preset("nvme")
	s.Model = "tape"
	assert.ErrorContains(t, s.Validate(), "device.model")
	s, _ = Preset("simple")
	s.Elevator = ""
	assert.ErrorContains(t, s.Validate(), "device.elevator")
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"512": 512, "4k": 4096, "60MiB": 60 << 20, "1G": 1 << 30, "2M/s": 2 << 20} {
		n, err := ParseBytes(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, n, in)
	}
	_, err := ParseBytes("x")
	assert.Error(t, err)
}

// TestExtremeSpecs builds every model at the ends of its ranges and runs it briefly:
// no overflow, no stall.
func TestExtremeSpecs(t *testing.T) {
	for _, text := range []string{
		"wu2011-hdd,bw=1TiB,bw_inner=1TiB,rpm=1000,capacity=1024TiB,part_start=0,disk_size=0",
		"wu2011-hdd,bw=1MiB,bw_inner=1MiB,rpm=20000,capacity=1GiB,qd=1,wcache=0",
		"nvme,bw=1TiB,chan_bw=1TiB,channels=4096,qd=65536,nr_requests=65536",
		"x25e,bw=1MiB,read_bw=1MiB,chan_bw=1MiB,channels=1,ftl_us=1000000",
		"capped,bw=1MiB,iops=1,burst_ms=0",
		"simple,bw=1MiB,req_us=1000000,max_sectors_kb=4,nr_requests=4,qd=1",
	} {
		w := sim.NewWorld(1000, 1)
		q := mustQueue(t, w, text)
		j := newJob(q, w, 1, Write, 8, 8, true, 0, 1<<30)
		r := measure(t, w, q, 0, 5*sim.Second, j)
		assert.Greater(t, r.WPS, 0.0, text)
	}
}
