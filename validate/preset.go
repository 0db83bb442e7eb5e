package validate

import "strings"

// Kernel612 is the wblab preset a log measured on a 6.12 kernel is compared with.
const Kernel612 = "6.12"

// presetFor is the preset a reference is compared with, from its log's
// `H kernel=` (uname -r in the guest): 6.12 for a 6.12 kernel
// (linux-image-6.12.*), else Kernel (the 6.1 of every reference so far).
func presetFor(uname string) string {
	if strings.HasPrefix(uname, "6.12.") || uname == "6.12" {
		return Kernel612
	}
	return Kernel
}
