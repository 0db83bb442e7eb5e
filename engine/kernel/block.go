package kernel

import "github.com/wblab/wblab/devices"

// Block is the block layer this kernel puts in front of hw (kernel-notes §7.1,
// §3). The hardware (devices.Spec) says only what the device and its driver
// allow (queue depth, max_hw_sectors_kb) and which scheduler the setup selects;
// the kernel decides the rest:
//   - the request pool: legacy (devices.LegacyBlock, with BLK_DEF_MAX_SECTORS
//     from MaxSectorsKB) or the v6.x blk-mq tags and plugging (BlockV6,
//     devices.MQBlock);
//   - blk-wbt: on when the kernel enables it (WBT), with its rules (WBTDraft,
//     WBTQD1, WBTV6) and RWB_DEF_DEPTH (WBTDepth, 16 when 0).
//
// hw.Elevator should already be the kernel's scheduler (ElevatorFor).
func (v Variants) Block(hw devices.Spec) devices.Block {
	var b devices.Block
	if v.BlockV6 {
		b = devices.MQBlock(hw)
	} else {
		kb := 512 // BLK_DEF_MAX_SECTORS = 1024 sectors
		if v.MaxSectorsKB > 0 {
			kb = v.MaxSectorsKB
		}
		b = devices.LegacyBlock(hw, kb)
	}
	b.WBT, b.WBTDraft, b.WBTQD1, b.WBTV6 = v.WBT, v.WBTDraft, v.WBTQD1, v.WBTV6
	if v.WBTDepth > 0 {
		b.WBTDepth = v.WBTDepth
	}
	return b
}

// ElevatorFor is the scheduler a kernel runs for the one a device's setup names:
// v6 (BlockV6) has only the blk-mq schedulers, so cfq (removed in v5.0) becomes
// mq-deadline (the model's deadline); deadline and noop ("none") stay.
func ElevatorFor(v Variants, elevator string) string {
	if v.BlockV6 && elevator == devices.ElevatorCFQ {
		return devices.ElevatorDeadline
	}
	return elevator
}
