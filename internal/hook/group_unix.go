//go:build unix

package hook

import (
	"os/exec"
	"syscall"
)

// setGroup starts the hook in a process group of its own, so that a timeout reaches every
// process it started; where the system allows, the hook dies with the test process.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
}

// terminateGroup asks every process of the hook's group to stop (SIGTERM), so that a hook
// interrupted or out of time can end its session; KillGrace later, killGroup ends them.
func terminateGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// groupAlive reports whether a process of the hook's group is still running (the hook
// itself has exited): something it started and left behind.
func groupAlive(cmd *exec.Cmd) bool {
	if cmd.Process == nil {
		return false
	}
	return syscall.Kill(-cmd.Process.Pid, 0) == nil
}
