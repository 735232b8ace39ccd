package hook

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// dieWithParent has the kernel kill the hook when the test process dies (SIGKILL, a CI
// cancel), so that no hook outlives the run.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

var (
	subreaper sync.Once
	groupsMu  sync.Mutex
	// groups are the process groups of every hook started, and whether it still runs.
	groups = map[int]bool{}
)

// hookStarted makes the test process a child subreaper (once), so that descendants a hook
// leaves behind when it exits (a double fork, a setsid daemon) become its children instead
// of init's, where reapEscaped finds them.
func hookStarted(pgid int) {
	subreaper.Do(func() {
		const prSetChildSubreaper = 36
		_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	})
	groupsMu.Lock()
	groups[pgid] = true
	groupsMu.Unlock()
}

// reapEscaped kills and reaps the processes hooks left behind: children of the test
// process (orphans come to it as the subreaper) in an ended hook's process group, and,
// once no hook runs, those that started a session of their own. Processes the test itself
// started are in neither, and are left alone.
func reapEscaped(pgid int) {
	groupsMu.Lock()
	groups[pgid] = false
	hookGroups := map[int]bool{}
	for g := range groups {
		hookGroups[g] = true
	}
	live := map[int]bool{}
	for g, running := range groups {
		if running {
			live[g] = true
		}
	}
	groupsMu.Unlock()
	self := os.Getpid()
	inGroup := map[int]bool{}
	for _, pid := range children(self) {
		ppid, pgrp, sid, ok := procStat(pid)
		if !ok || ppid != self || live[pid] || live[pgrp] {
			continue // a running hook's, or not a child of the test process
		}
		inGroup[pgrp] = true
		// One that left its group for a session of its own cannot be told apart from another
		// running hook's, so it goes when no hook runs.
		if (hookGroups[pgrp] && pgrp != self) || (sid == pid && len(live) == 0) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil) // reaped, not left a zombie
		}
	}
	// An ended hook's group with no process left is forgotten: its processes' orphans
	// would have come to the test process, and none is in it.
	groupsMu.Lock()
	for g, running := range groups {
		if !running && !inGroup[g] {
			delete(groups, g)
		}
	}
	groupsMu.Unlock()
}

// children lists the test process's children: from each of its threads' children file
// (a few reads, however many processes the machine runs), or, on a kernel without those
// files, every process in /proc, which procStat then sorts out.
func children(self int) []int {
	var pids []int
	tasks, err := os.ReadDir("/proc/self/task")
	listed := err == nil
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			listed = false
			break
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	if listed {
		return pids
	}
	pids = pids[:0]
	entries, _ := os.ReadDir("/proc") // nothing to reap when /proc cannot be read
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != self {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat reads a process's parent, process group and session from /proc.
func procStat(pid int) (ppid, pgrp, sid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 {
		return 0, 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	sid, _ = strconv.Atoi(f[3])
	return ppid, pgrp, sid, true
}
