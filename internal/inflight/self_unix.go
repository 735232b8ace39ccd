//go:build unix

package inflight

import (
	"syscall"
	"time"
)

// SelfCPU is the user and system time this process has used.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
