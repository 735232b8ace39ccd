//go:build !unix

package mcpprobe

import "os/exec"

// ownGroup leaves the command as it is where there are no process groups: ending the probe
// kills the server process itself (exec.CommandContext's default).
func ownGroup(cmd *exec.Cmd) {}
