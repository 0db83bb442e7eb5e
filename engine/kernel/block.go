package kernel

import "github.com/wblab/wblab/devices"

// swWBT is blk-wbt on by default (the 4.6+wbt presets, 6.1).
var swWBT = declare(Switch{Name: "wbt", Order: 170,
	Doc:    "blk-wbt on for every disk (the 4.6+wbt presets, 6.1); a disk's wbt= key still overrides it",
	Models: "blk-wbt, block/blk-wb.c (2016 drafts) / block/blk-wbt.c",
	Source: threadKara})

var pathWbtThrottleMax = swWBT.path("wbt_throttle.max",
	"writes that waited in wbt_wait under wb_max (sync, meta, recent wait)", swWBTDraft, swWBTQD1, swWBTV6)

var pathWbtThrottleNormal = swWBT.path("wbt_throttle.normal",
	"writes that waited in wbt_wait under wb_normal", swWBTDraft, swWBTQD1, swWBTV6)

var pathWbtThrottleBackground = swWBT.path("wbt_throttle.background",
	"writes that waited in wbt_wait under wb_background", swWBTDraft, swWBTQD1, swWBTV6)

// swWBTDraft is the 2016 wb-buf-throttle draft semantics.
var swWBTDraft = declare(Switch{Name: "wbt_draft", Order: 180,
	Doc:    "blk-wbt 2016 draft semantics",
	Models: "wb-buf-throttle draft of 2016 (unsigned scale_step, wake one)",
	Source: threadKara})

// swWBTQD1 is Axboe's 2016 QD=1 patch: limits 2/2/1, 1/1/1 when scaled down.
var swWBTQD1 = declare(Switch{Name: "wbt_qd1", Order: 190,
	Doc:    "blk-wbt QD=1 patch (Axboe 2016): limits 2/2/1 and 1/1/1 scaled down",
	Models: "calc_wb_limits, blk-wbt draft 2016 + QD=1 patch",
	Source: threadKara})

// swWBTV6 selects the v6 rq_depth limits for blk-wbt:
// max_depth <= 2 gives normal = max_depth, background = 1, and negative scale
// steps when only writes are seen.
var swWBTV6 = declare(Switch{Name: "wbt_v6", Order: 450,
	Doc:    "blk-wbt v6 limits: max_depth <= 2 → normal = max, background = 1",
	Models: "rq_depth_calc_max_depth, calc_wb_limits, block/blk-wbt.c v6.1",
	Source: notesV6})

// swBlockV6 makes the kernel set the device's block layer to v6.x: blk-mq tags
// (a legacy device's 128-request pools become 2*min(QD, 128) tags under
// mq-deadline, QD tags under "none"; cfq, gone in v5.0, becomes mq-deadline),
// max_sectors_kb 1280 (BLK_DEF_MAX_SECTORS_CAP), plug flush at 32 requests or
// a 128 KiB request.
var swBlockV6 = declare(Switch{Name: "block_v6", Order: 460,
	Doc:    "v6 block layer set by the kernel: blk-mq tags, max_sectors_kb 1280, plug 32 requests / 128 KiB",
	Models: "blk-mq, BLK_DEF_MAX_SECTORS_CAP, blk_mq_submit_bio plugging, v6.1",
	Source: notesV6,
	Uncounted: "decided once when the machine is built (the block layer of every disk: blk-mq tags, " +
		"max_sectors_kb, plugging); every request goes through it, so it runs whenever there is IO"})

// Block is the block layer this kernel puts in front of hw (kernel-notes §7.1,
// §3). The hardware (devices.Spec) says only what the device and its driver
// allow (queue depth, max_hw_sectors_kb) and which scheduler the setup selects;
// the kernel decides the rest:
//   - the request pool: legacy (devices.LegacyBlock, with BLK_DEF_MAX_SECTORS
//     from MaxSectorsKB) or the v6.x blk-mq tags and plugging (block_v6,
//     devices.MQBlock);
//   - blk-wbt: on when the kernel enables it (wbt), with its rules (wbt_draft,
//     wbt_qd1, wbt_v6) and RWB_DEF_DEPTH (WBTDepth, 16 when 0).
//
// hw.Elevator should already be the kernel's scheduler (ElevatorFor).
func (v Variants) Block(hw devices.Spec) devices.Block {
	var b devices.Block
	if v.On(swBlockV6) {
		b = devices.MQBlock(hw)
	} else {
		kb := 512 // BLK_DEF_MAX_SECTORS = 1024 sectors
		if v.MaxSectorsKB > 0 {
			kb = v.MaxSectorsKB
		}
		b = devices.LegacyBlock(hw, kb)
	}
	b.WBT, b.WBTDraft, b.WBTQD1, b.WBTV6 = v.On(swWBT), v.On(swWBTDraft), v.On(swWBTQD1), v.On(swWBTV6)
	if v.WBTDepth > 0 {
		b.WBTDepth = v.WBTDepth
	}
	return b
}

// ElevatorFor is the scheduler a kernel runs for the one a device's setup names:
// v6 (block_v6) has only the blk-mq schedulers, so cfq (removed in v5.0) becomes
// mq-deadline (the model's deadline); deadline and noop ("none") stay.
func ElevatorFor(v Variants, elevator string) string {
	if v.On(swBlockV6) && elevator == devices.ElevatorCFQ {
		return devices.ElevatorDeadline
	}
	return elevator
}
