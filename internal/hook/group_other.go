//go:build !unix

package hook

import (
	"os"
	"syscall"
)

func groupAttr() *syscall.SysProcAttr { return nil }

// terminateGroup kills the hook: there is no process group to signal here.
func terminateGroup(p *os.Process) { _ = p.Kill() }

func killGroup(p *os.Process) { _ = p.Kill() }

// groupAlive cannot tell here: there is no process group.
func groupAlive(*os.Process) bool { return false }
