//go:build unix

package hook

import (
	"os/exec"
	"syscall"
)

// setGroup starts the hook in a process group of its own, so that a timeout reaches every
// process it started.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
