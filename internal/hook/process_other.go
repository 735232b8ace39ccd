//go:build !linux

package hook

import (
	"fmt"
	"os"
)

// start starts a hook as a plain child in a process group of its own (where there are
// process groups): its group is ended when it exits, but a descendant that left the group
// is not found.
func start(path string, argv []string, dir string, env []string, files [3]*os.File) (process, error) {
	p, err := os.StartProcess(path, argv, &os.ProcAttr{Dir: dir, Env: env, Files: files[:], Sys: groupAttr()})
	if err != nil {
		return nil, err
	}
	d := &direct{p: p, d: make(chan struct{})}
	go d.wait()
	return d, nil
}

type direct struct {
	p *os.Process
	d chan struct{}
	e ended
}

func (d *direct) terminate()            { terminateGroup(d.p) }
func (d *direct) kill()                 { killGroup(d.p) }
func (d *direct) done() <-chan struct{} { return d.d }
func (d *direct) ended() ended          { <-d.d; return d.e }

func (d *direct) wait() {
	defer close(d.d)
	st, err := d.p.Wait()
	if err != nil {
		d.e = ended{code: -1, err: err}
		return
	}
	d.e = ended{exited: st.Exited(), code: st.ExitCode(), cpu: st.UserTime() + st.SystemTime()}
	if !st.Exited() {
		d.e.how = st.String()
	}
	if groupAlive(d.p) {
		d.e.left = []string{fmt.Sprintf("a process of its process group %d", d.p.Pid)}
		killGroup(d.p)
	}
}
