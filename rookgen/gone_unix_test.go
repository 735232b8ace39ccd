//go:build unix

package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processGone reports whether pid has ended: no such process, or a zombie waiting for its
// reaper.
func processGone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return strings.Contains(string(stat), ") Z ")
}

// sigterm is how a test asks a run to stop, as a CI runner cancelling a job does.
var sigterm os.Signal = syscall.SIGTERM
