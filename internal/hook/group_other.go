//go:build !unix

package hook

import "os/exec"

func setGroup(*exec.Cmd) {}

// terminateGroup kills the hook: there is no process group to signal here.
func terminateGroup(cmd *exec.Cmd) error { return killGroup(cmd) }

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// groupAlive cannot tell here: there is no process group.
func groupAlive(*exec.Cmd) bool { return false }
