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
	// the presets the reproductions and tests name (more may be added: a new
	// preset is one entry in presets())
	want := []string{"capped", "chinner2010-vm", "kara2016-qd1", "nvme", "simple", "usb2-stick", "usb3-hdd", "wu2011-hdd", "x25e"}
	var names []string
	for _, s := range Presets() {
		names = append(names, s.Name)
		require.NoError(t, s.Validate(), s.Name)
		assert.NotEmpty(t, s.Doc, s.Name)
		assert.NotContains(t, s.Doc, "\n", "one line")
		w := sim.NewWorld(1000, 1)
		q, err := New(w, s, LegacyBlock(s, 512))
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
	assert.Subset(t, names, want)
	assert.IsNonDecreasing(t, names, "sorted by name")

	// the hardware, and the legacy and blk-mq block layers the kernel builds on it
	tests := []struct {
		name                   string
		qd, hwKB               int
		rot                    bool
		elevator, model        string
		minWriteBps            int64
		legacyKB, mqKB, mqTags int
	}{
		{"simple", 31, 0, true, ElevatorNoop, ModelSimple, 60 << 20, 512, 1280, 31},
		{"wu2011-hdd", 31, 0, true, ElevatorCFQ, ModelHDD, 0, 512, 1280, 62},
		{"kara2016-qd1", 1, 0, true, ElevatorDeadline, ModelHDD, 0, 512, 1280, 4},
		{"nvme", 1023, 0, false, ElevatorNoop, ModelNVMe, 0, 512, 1280, 1023},
		{"x25e", 32, 0, false, ElevatorDeadline, ModelSSD, 0, 512, 1280, 64},
		{"capped", 128, 0, false, ElevatorNoop, ModelCapped, 0, 512, 1280, 128},
		{"chinner2010-vm", 128, 0, true, ElevatorDeadline, ModelNVMe, 1_500_000_000, 512, 1280, 256},
		{"usb2-stick", 1, 120, true, ElevatorDeadline, ModelSSD, 0, 120, 120, 4},
		{"usb3-hdd", 1, 1024, true, ElevatorDeadline, ModelHDD, 0, 512, 1024, 4},
	}
	for _, tc := range tests {
		s, err := Preset(tc.name)
		require.NoError(t, err)
		assert.Equal(t, tc.model, s.Model, tc.name)
		assert.Equal(t, tc.qd, s.QueueDepth, tc.name)
		assert.Equal(t, tc.hwKB, s.MaxHWSectorsKB, tc.name)
		assert.Equal(t, tc.rot, s.Rotational, tc.name)
		assert.Equal(t, tc.elevator, s.Elevator, tc.name)
		if tc.minWriteBps > 0 {
			assert.GreaterOrEqual(t, s.BandwidthBps, tc.minWriteBps, tc.name)
		}
		l := LegacyBlock(s, 512)
		assert.Equal(t, Block{MaxSectorsKB: tc.legacyKB, NrRequests: 128, PlugCount: 16, WBTDepth: 16}, l, tc.name)
		m := MQBlock(s)
		assert.Equal(t, Block{MaxSectorsKB: tc.mqKB, NrRequests: tc.mqTags, BlkMQ: true, PlugCount: 32, PlugBytes: 128 << 10, WBTDepth: 16}, m, tc.name)
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
		{"wu2011-hdd,destage_age=run5", []string{"destage_age=\"run5\"", "run|write"}},
		{"nvme,destage_age=write", []string{"unknown key \"destage_age\"", "model nvme"}},
		{"nvme,wbt=maybe", []string{"wbt=\"maybe\"", "on|off"}},
		{"nvme,max_sectors_kb=2", []string{"max_sectors_kb=\"2\"", "[4, 32768]"}},
		{"nvme,req_us=-3", []string{"req_us=\"-3\"", "[0, 1000000] us"}},
		{"capped,iops=x", []string{"iops=\"x\"", "want an integer"}},
	}
	for _, tc := range tests {
		_, _, err := ParseSpec(tc.in)
		require.Error(t, err, tc.in)
		for _, w := range tc.want {
			assert.Contains(t, err.Error(), w, tc.in)
		}
	}
}

func TestParseSpecOverrides(t *testing.T) {
	s, o, err := ParseSpec("simple,bw=100MiB,qd=1,req_us=50")
	require.NoError(t, err)
	assert.Nil(t, o)
	assert.Equal(t, int64(100<<20), s.BandwidthBps)
	assert.Equal(t, 1, s.QueueDepth)
	assert.Equal(t, int64(50_000), s.RequestNs)
	assert.Equal(t, "simple,qd=1,bw=100MiB,req_us=50", s.String())

	s, o, err = ParseSpec("x25e,qd=1,req_us=12.5,bw=200MB,wbt=on,wbt_lat_us=2500")
	require.NoError(t, err)
	assert.Equal(t, int64(12_500), s.RequestNs)
	assert.Equal(t, int64(200_000_000), s.BandwidthBps, "MB is decimal for rates")
	assert.Equal(t, BlockOverrides{"wbt": "on", "wbt_lat_us": "2500"}, o, "block keys are the kernel's, kept as overrides")
	blk, err := o.Apply(LegacyBlock(s, 512))
	require.NoError(t, err)
	assert.True(t, blk.WBT)
	assert.Equal(t, int64(2_500_000), blk.WBTLatNs)
	back, bo, err := ParseSpec(s.String() + o.String())
	require.NoError(t, err)
	assert.Equal(t, s, back, s.String())
	assert.Equal(t, o, bo)

	s, _, err = ParseSpec("capped,bw=50MiB,iops=3000,burst_ms=250")
	require.NoError(t, err)
	assert.Equal(t, int64(50<<20), s.BandwidthBps)
	assert.Equal(t, int64(3000), s.IOPS)
	assert.Equal(t, int64(250*sim.Millisecond), s.BurstNs)

	_, o, err = ParseSpec("nvme,wbt_lat_us=0")
	require.NoError(t, err)
	blk, err = o.Apply(MQBlock(s))
	require.NoError(t, err)
	assert.False(t, blk.WBT, "wbt_lat_us=0 disables wbt as in sysfs")
	_, err = BlockOverrides{"wbt": "on", "wbt_lat_us": "0"}.Apply(Block{MaxSectorsKB: 512, NrRequests: 4, PlugCount: 1, WBTDepth: 1})
	require.NoError(t, err)

	// a block key on a Spec names where it belongs
	sp, _ := Preset("nvme")
	assert.ErrorContains(t, sp.Set("wbt", "on"), "block-layer key")

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
	for _, k := range []string{"bw", "iops", "burst_ms", "qd", "wbt", "wbt_lat_us", "max_hw_sectors_kb"} {
		assert.Contains(t, KeysFor(ModelCapped), k)
	}
	// every block key accepts its own minimum and maximum
	for _, p := range blockParams() {
		b := LegacyBlock(Spec{}, 512)
		for _, v := range []int64{p.min, p.max} {
			txt := p.show(v)
			require.NoError(t, b.Set(p.key, txt), "%s=%s", p.key, txt)
			assert.Equal(t, v, getField(b.ptr(p.key)), "%s=%s", p.key, txt)
		}
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

// TestDestageAgeDefault: an HDD spec without destage_age (every preset, and JSON
// that omits it) validates and behaves as "run"; the key round-trips.
func TestDestageAgeDefault(t *testing.T) {
	s, err := Preset("wu2011-hdd")
	require.NoError(t, err)
	assert.Empty(t, s.DestageAge)
	require.NoError(t, s.Validate())
	assert.False(t, newHDD(sim.NewWorld(1000, 1), s).ageWrites)
	w, _, err := ParseSpec("wu2011-hdd,destage_age=write")
	require.NoError(t, err)
	assert.Equal(t, DestageAgeWrite, w.DestageAge)
	assert.True(t, newHDD(sim.NewWorld(1000, 1), w).ageWrites)
	assert.Equal(t, "wu2011-hdd,destage_age=write", w.String())
}
