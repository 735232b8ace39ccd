//go:build linux

package supervisor

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// stat is what /proc/PID/stat says of a process.
type stat struct {
	state           byte
	ppid, pgrp, sid int
	// exiting is set once it has begun to exit (a signal killed it, or it called exit):
	// it is dying, not running on.
	exiting bool
}

// pfExiting is the kernel's flag for a process that has begun to exit.
const pfExiting = 0x4

// readStat reads a process's state, parent, process group and session.
func readStat(pid int) (stat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	i := bytes.LastIndexByte(b, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 7 || len(f[0]) != 1 {
		return stat{}, false
	}
	s := stat{state: f[0][0]}
	s.ppid, _ = strconv.Atoi(f[1])
	s.pgrp, _ = strconv.Atoi(f[2])
	s.sid, _ = strconv.Atoi(f[3])
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	s.exiting = flags&pfExiting != 0 || s.state == 'Z' || s.state == 'X'
	return s, true
}

// childrenOf lists a process's children: from each of its threads' children file, or, on a
// kernel without those files, every process in /proc whose parent it is.
func childrenOf(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil // it is gone
	}
	var kids []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + t.Name() + "/children")
		if os.IsNotExist(err) {
			return scanChildren(pid)
		}
		for _, f := range strings.Fields(string(b)) {
			if k, err := strconv.Atoi(f); err == nil {
				kids = append(kids, k)
			}
		}
	}
	return kids
}

// scanChildren finds pid's children among every process in /proc.
func scanChildren(pid int) []int {
	entries, _ := os.ReadDir("/proc") // nothing found when /proc cannot be read
	var kids []int
	for _, e := range entries {
		k, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, ok := readStat(k); ok && s.ppid == pid {
			kids = append(kids, k)
		}
	}
	return kids
}

// subtree is pid and every process below it, parents first.
func subtree(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out) && len(out) < 4096; i++ {
		out = append(out, childrenOf(out[i])...)
	}
	return out
}

// commandLine is a process's arguments joined by spaces, cut at 200 bytes, or its name in
// brackets when it has none (a kernel thread, or one that exited meanwhile). A process in
// the middle of an exec has none for a moment (its new name already set, on a loaded
// machine for several milliseconds): it is asked again, for up to 50 ms.
func commandLine(pid int) string {
	var b []byte
	var err error
	for try := 0; try < 50; try++ {
		if b, err = os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err != nil || len(b) > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	s := strings.TrimRight(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), " ")
	if err != nil || s == "" {
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		s = "[" + strings.TrimSpace(string(comm)) + "]"
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// markOf is the value of Marker in a process's environment as it started, or "".
func markOf(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(Marker+"=")); ok {
			return string(v)
		}
	}
	return ""
}
