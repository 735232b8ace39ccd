//go:build unix

package main

import (
	"os"
	"syscall"
)

// maxrssKB is a finished process's peak resident set, in KiB (Linux's unit for ru_maxrss).
func maxrssKB(st *os.ProcessState) int64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss)
	}
	return 0
}
