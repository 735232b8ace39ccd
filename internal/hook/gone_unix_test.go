//go:build unix

package hook_test

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
