//go:build unix && !linux

package mcpprobe

import (
	"os/exec"
	"syscall"
)

// ownGroup starts a command server in a process group of its own, and ends the whole
// group when the probe is done: what the server starts does not outlive it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
