package mcpprobe

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/rookgo/rookgo/internal/supervisor"
)

// startServer starts a command server under the hook supervisor, as hooks are: whatever it
// leaves running when it ends (a child in its group, one that moved to a group or session
// of its own) is ended then and named by stop. The server's stdin and stdout are the
// returned pipes; its stderr goes to stderr. The context's end kills it.
func startServer(ctx context.Context, argv []string, dir string, env []string, stderr io.Writer) (*server, error) {
	path := argv[0]
	if filepath.Base(path) == path {
		lp, err := exec.LookPath(path)
		if err != nil {
			return nil, err
		}
		path = lp
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, err
	}
	p, err := supervisor.Start(append([]string{path}, argv[1:]...), dir, env, inR, outW, errW)
	closeAll(inR, outW, errW) // the server has its own
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(stderr, errR) // until the server and what it left have ended
		close(copied)
	}()
	s := &server{stdin: inW, stdout: outR}
	watch := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = p.Signal(syscall.SIGKILL) // it has ended meanwhile: nothing to do
		case <-watch:
		}
	}()
	s.stop = func() []string {
		defer close(watch)
		_ = inW.Close() // end of input ends a server that follows the protocol
		select {
		case <-p.Done():
		case <-time.After(time.Second):
			_ = p.Signal(syscall.SIGTERM)
			select {
			case <-p.Done():
			case <-time.After(time.Second):
				_ = p.Signal(syscall.SIGKILL)
			}
		}
		e := p.Wait()
		_ = outR.Close()
		select {
		case <-copied:
		case <-time.After(time.Second): // a process no longer the supervisor's holds its stderr
		}
		_ = errR.Close()
		var left []string
		for _, q := range e.Left {
			switch {
			case q.Pid == 0:
				left = append(left, q.Command)
			default:
				left = append(left, fmt.Sprintf("pid %d: %s", q.Pid, q.Command))
			}
		}
		return left
	}
	return s, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close() // a pipe end this process does not use
	}
}
