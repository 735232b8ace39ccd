//go:build !unix

package inflight

import "time"

// SelfCPU is 0 here: an automatic limit counts the hooks' CPU alone.
func SelfCPU() time.Duration { return 0 }
