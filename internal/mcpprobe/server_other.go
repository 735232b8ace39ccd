//go:build !linux

package mcpprobe

import (
	"context"
	"io"
	"os/exec"
	"time"
)

// startServer starts a command server in a process group of its own where there is one
// (there is no supervisor here): stop ends the group, and cannot name what it left.
func startServer(ctx context.Context, argv []string, dir string, env []string, stderr io.Writer) (*server, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = dir, env, stderr
	ownGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{stdin: in, stdout: out}
	s.stop = func() []string {
		_ = in.Close() // end of input ends a server that follows the protocol
		done := make(chan struct{})
		go func() {
			_ = cmd.Wait() // how it ended is not evidence
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(time.Second):
			if cmd.Cancel != nil {
				_ = cmd.Cancel()
			} else {
				_ = cmd.Process.Kill()
			}
			<-done
		}
		return nil
	}
	return s, nil
}
