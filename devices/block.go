package devices

import (
	"fmt"
	"sort"
	"strings"
)

// Block is the block layer in front of a device: the request pool or tags, request
// size, plugging and blk-wbt. It belongs to the kernel, not to the hardware: the
// kernel preset computes it for a device (kernel.Variants.Block), and a run's
// BlockOverrides change single keys of it (sysfs queue/*, or a kernel built
// differently). Integer units: bytes, nanoseconds.
type Block struct {
	MaxSectorsKB int   `json:"max_sectors_kb"` // largest merged request: min(BLK_DEF_MAX_SECTORS, the device's max_hw_sectors_kb)
	NrRequests   int   `json:"nr_requests"`    // legacy: requests per pool (sync, async); mq: tags
	BlkMQ        bool  `json:"mq"`             // blk-mq tags (one shared pool, no congestion marks)
	PlugCount    int   `json:"plug_count"`     // plug flush at this many requests: 16 (v3.2) / 32 (v6)
	PlugBytes    int64 `json:"plug_bytes"`     // and when the last plugged request is this big: 0 / 128 KiB (v6)

	// blk-wbt (kernel-notes §3).
	WBT      bool  `json:"wbt"`        // wbt enabled
	WBTLatNs int64 `json:"wbt_lat_ns"` // min_lat_nsec; 0 = wbt_default_latency_nsec (2 ms / 75 ms rotational)
	WBTDepth int   `json:"wbt_depth"`  // RWB_DEF_DEPTH: 16 merged, 64 in the 2016 drafts
	WBTQD1   bool  `json:"wbt_qd1"`    // the 2016 QD=1 patch: 2/2/1, 1/1/1 when scaled down
	WBTV6    bool  `json:"wbt_v6"`     // v6.x rq_depth: max_depth <= 2 => normal = max, background = 1
	WBTDraft bool  `json:"wbt_draft"`  // 2016 draft: unsigned scale_step, no UNKNOWN_WRITES, wake one, no FIFO fairness
}

// LegacyBlock is the legacy (pre-blk-mq) block layer for hw (kernel-notes §7.1):
// BLKDEV_MAX_RQ = 128 requests per sync/async pool, BLK_MAX_REQUEST_COUNT = 16
// requests per plug, requests of BLK_DEF_MAX_SECTORS (defMaxKB: 512 KiB, 1280
// from v4.4) or the device's own limit when smaller (blk_queue_max_hw_sectors),
// RWB_DEF_DEPTH 16 if wbt is switched on.
func LegacyBlock(hw Spec, defMaxKB int) Block {
	return Block{MaxSectorsKB: hw.capSectors(defMaxKB), NrRequests: 128, PlugCount: 16, WBTDepth: 16}
}

// MQBlock is the v6.x blk-mq block layer for hw (kernel-notes §7.1): tags, the
// tag set's depth (QD) under "none", else 2*min(QD, BLKDEV_DEFAULT_RQ = 128)
// (blk_mq_init_sched), at least BLKDEV_MIN_RQ = 4; BLK_DEF_MAX_SECTORS_CAP
// 1280 KiB; plug flush at BLK_MAX_REQUEST_COUNT = 32 requests or a
// BLK_PLUG_FLUSH_SIZE = 128 KiB request (blk_add_rq_to_plug).
func MQBlock(hw Spec) Block {
	b := Block{MaxSectorsKB: hw.capSectors(1280), BlkMQ: true, PlugCount: 32, PlugBytes: 128 << 10, WBTDepth: 16}
	if hw.Elevator == ElevatorNoop {
		b.NrRequests = hw.QueueDepth
	} else {
		b.NrRequests = 2 * min(hw.QueueDepth, 128)
	}
	b.NrRequests = max(b.NrRequests, 4)
	return b
}

// capSectors is max_sectors_kb = min(the kernel's default, max_hw_sectors_kb)
// (blk_queue_max_hw_sectors).
func (s Spec) capSectors(kernelKB int) int {
	if s.MaxHWSectorsKB > 0 && s.MaxHWSectorsKB < kernelKB {
		return s.MaxHWSectorsKB
	}
	return kernelKB
}

// blockParams are the Block keys, in the --device text with the hardware keys.
func blockParams() []param {
	ms := int64(1_000_000)
	return []param{
		{key: "max_sectors_kb", json: "max_sectors_kb", kind: kInt, min: 4, max: 32768, block: true, doc: "largest merged request, KiB (kernel: 512 before 4.4, 1280 after; at most the device's max_hw_sectors_kb)"},
		{key: "nr_requests", json: "nr_requests", kind: kInt, min: 4, max: 65536, block: true, doc: "legacy pool size per sync/async, or mq tags"},
		{key: "mq", json: "mq", kind: kBool, max: 1, block: true, doc: "blk-mq tags instead of the legacy request pool"},
		{key: "plug_count", json: "plug_count", kind: kInt, min: 1, max: 4096, block: true, doc: "plug flush at this many requests (16 v3.2, 32 v6)"},
		{key: "plug_bytes", json: "plug_bytes", kind: kBytes, min: 0, max: 1 << 30, block: true, doc: "plug flush when the last request reaches this size (0 = off; 128k v6)"},
		{key: "wbt", json: "wbt", kind: kBool, max: 1, block: true, doc: "blk-wbt on/off (kernel: on in 6.1 and 4.6+wbt)"},
		{key: "wbt_lat_us", json: "wbt_lat_ns", kind: kUs, min: 0, max: 10_000 * ms, block: true, doc: "wbt min_lat (0 = default: 2000 non-rotational, 75000 rotational)"},
		{key: "wbt_depth", json: "wbt_depth", kind: kInt, min: 1, max: 4096, block: true, doc: "RWB_DEF_DEPTH (16; 64 in the 2016 drafts)"},
		{key: "wbt_qd1", json: "wbt_qd1", kind: kBool, max: 1, block: true, doc: "the 2016 QD=1 patch (2/2/1, 1/1/1 scaled down)"},
		{key: "wbt_v6", json: "wbt_v6", kind: kBool, max: 1, block: true, doc: "v6.x limits (max_depth<=2: normal=max, bg=1)"},
		{key: "wbt_draft", json: "wbt_draft", kind: kBool, max: 1, block: true, doc: "2016 draft wbt (unsigned step, wake one)"},
	}
}

// ptr returns the address of the field behind key.
func (b *Block) ptr(key string) any {
	switch key {
	case "max_sectors_kb":
		return &b.MaxSectorsKB
	case "nr_requests":
		return &b.NrRequests
	case "mq":
		return &b.BlkMQ
	case "plug_count":
		return &b.PlugCount
	case "plug_bytes":
		return &b.PlugBytes
	case "wbt":
		return &b.WBT
	case "wbt_lat_us":
		return &b.WBTLatNs
	case "wbt_depth":
		return &b.WBTDepth
	case "wbt_qd1":
		return &b.WBTQD1
	case "wbt_v6":
		return &b.WBTV6
	case "wbt_draft":
		return &b.WBTDraft
	}
	return nil
}

func blockParam(key string) (param, bool) {
	for _, p := range blockParams() {
		if p.key == key {
			return p, true
		}
	}
	return param{}, false
}

// IsBlockKey reports whether key is a block-layer key (a BlockOverrides key).
func IsBlockKey(key string) bool { _, ok := blockParam(key); return ok }

// BlockKeys lists the block-layer keys.
func BlockKeys() []string {
	var out []string
	for _, p := range blockParams() {
		out = append(out, p.key)
	}
	return out
}

// Set changes one key of b, checked against its range.
func (b *Block) Set(key, val string) error {
	p, ok := blockParam(key)
	if !ok {
		return fmt.Errorf("block: unknown key %q (keys: %s)", key, strings.Join(BlockKeys(), ", "))
	}
	if err := p.store(b.ptr(key), val, func(what string) error {
		return fmt.Errorf("block %s=%q: %s, allowed %s", key, val, what, p.rangeText())
	}); err != nil {
		return err
	}
	if key == "wbt_lat_us" && b.WBTLatNs == 0 {
		// as /sys/block/X/queue/wbt_lat_usec: 0 disables wbt
		b.WBT = false
	}
	return nil
}

// Validate checks every field against its range, naming the key.
func (b Block) Validate() error {
	for _, p := range blockParams() {
		if v := getField(b.ptr(p.key)); v < p.min || v > p.max {
			return fmt.Errorf("block.%s (json %q): %s out of range %s", p.key, p.json, p.show(v), p.rangeText())
		}
	}
	return nil
}

// BlockOverrides are a run's changes to the kernel's block layer, by key, in the
// --device text's units ("wbt": "off", "max_sectors_kb": "256").
type BlockOverrides map[string]string

// Validate checks every key and value.
func (o BlockOverrides) Validate() error {
	_, err := o.Apply(Block{MaxSectorsKB: 512, NrRequests: 128, PlugCount: 16, WBTDepth: 16})
	return err
}

// Apply returns b with the overrides set, in key order.
func (o BlockOverrides) Apply(b Block) (Block, error) {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := b.Set(k, o[k]); err != nil {
			return b, err
		}
	}
	return b, b.Validate()
}

// String is the overrides as ",key=value" text, in key order ("" for none).
func (o BlockOverrides) String() string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString("," + k + "=" + o[k])
	}
	return b.String()
}
