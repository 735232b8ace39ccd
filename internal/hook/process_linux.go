package hook

import (
	"fmt"
	"os"
	"syscall"

	"github.com/rookgo/rookgo/internal/supervisor"
)

// start starts a hook under the supervisor: what it leaves running is found and ended
// when it exits, whatever group or session it moved to, and nothing else is touched.
func start(path string, argv []string, dir string, env []string, files [3]*os.File) (process, error) {
	p, err := supervisor.Start(append([]string{path}, argv[1:]...), dir, env, files[0], files[1], files[2])
	if err != nil {
		return nil, err
	}
	return supervised{p}, nil
}

type supervised struct{ p *supervisor.Proc }

func (s supervised) terminate()            { _ = s.p.Signal(syscall.SIGTERM) } // it ended meanwhile: nothing to do
func (s supervised) kill()                 { _ = s.p.Signal(syscall.SIGKILL) }
func (s supervised) done() <-chan struct{} { return s.p.Done() }

func (s supervised) ended() ended {
	e := s.p.Wait()
	if e.Err != nil {
		return ended{code: -1, err: e.Err}
	}
	r := ended{exited: e.Status.Exited(), code: e.Status.ExitStatus(), cpu: e.CPU}
	if e.Status.Signaled() {
		r.how = "signal: " + e.Status.Signal().String()
	}
	for _, p := range e.Left {
		switch {
		case p.Pid == 0:
			r.left = append(r.left, p.Command)
		case p.Unsure:
			r.left = append(r.left, fmt.Sprintf("pid %d: %s (left by a hook of this run; which one could not be told)", p.Pid, p.Command))
		default:
			r.left = append(r.left, fmt.Sprintf("pid %d: %s", p.Pid, p.Command))
		}
	}
	return r
}
