//go:build unix && !linux

package hook

import (
	"os"
	"syscall"
)

func groupAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func terminateGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGTERM) } // gone: nothing to stop

func killGroup(p *os.Process) { _ = syscall.Kill(-p.Pid, syscall.SIGKILL) }

// groupAlive reports whether a process of the hook's group still runs (the hook itself has
// exited): something it started and left behind.
func groupAlive(p *os.Process) bool { return syscall.Kill(-p.Pid, 0) == nil }
