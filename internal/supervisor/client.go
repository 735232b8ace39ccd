//go:build linux

package supervisor

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"sync"
	"syscall"
)

// Proc is a hook started under the supervisor.
type Proc struct {
	// Pid is the hook's process id; it leads its own session and process group.
	Pid int

	c       *client
	id      uint64
	started chan *message
	done    chan struct{}
	exit    Exit
}

// Start starts argv under the supervisor, in dir, with exactly env, and stdin, stdout and
// stderr as given; the supervisor is started on first use. The caller may close its files
// when Start returns. A program that cannot be started is an *fs.PathError, as from
// os.StartProcess.
func Start(argv []string, dir string, env []string, stdin, stdout, stderr *os.File) (*Proc, error) {
	c, err := shared()
	if err != nil {
		return nil, err
	}
	p := &Proc{c: c, started: make(chan *message, 1), done: make(chan struct{})}
	if err := c.add(p); err != nil {
		return nil, err
	}
	if err := c.w.send(&message{Op: "start", ID: p.id, Argv: argv, Dir: dir, Env: env}, stdin, stdout, stderr); err != nil {
		c.fail(fmt.Errorf("send to the hook supervisor: %w", err))
	}
	var m *message
	select {
	case m = <-p.started:
	case <-p.done:
		select {
		case m = <-p.started: // it started, and ended at once
		default:
			return nil, p.exit.Err // the supervisor is gone
		}
	}
	if m.Op == "failed" {
		c.remove(p.id)
		return nil, &fs.PathError{Op: "fork/exec", Path: argv[0], Err: m.Errno}
	}
	p.Pid = m.Pid
	return p, nil
}

// Signal sends sig to the hook's process group while the hook runs; once it has ended,
// what it left is already ended and Signal does nothing.
func (p *Proc) Signal(sig syscall.Signal) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	return p.c.w.send(&message{Op: "signal", ID: p.id, Sig: sig})
}

// Done is closed when the hook has ended and what it left is ended too.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Wait waits for Done and says how the hook ended.
func (p *Proc) Wait() Exit {
	<-p.done
	return p.exit
}

// client is the test process's side of the supervisor.
type client struct {
	w    *wire
	proc *os.Process
	mu   sync.Mutex
	next uint64
	live map[uint64]*Proc
	err  error // set when the supervisor is gone
}

var (
	sharedMu sync.Mutex
	current  *client
)

// shared is the running supervisor, started when there is none (or the last one ended).
func shared() (*client, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if current != nil && current.alive() {
		return current, nil
	}
	c, err := launch()
	if err != nil {
		return nil, fmt.Errorf("start the hook supervisor: %w", err)
	}
	current = c
	return c, nil
}

// launch starts the test binary again as the supervisor, in a process group of its own
// (Ctrl-C is the test process's to handle), its stdio on the null device, with its end of
// a socket as file 3.
func launch() (*client, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("socketpair: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(fds[0]), "supervisor"), os.NewFile(uintptr(fds[1]), "supervisor")
	defer closeAll(mine, theirs) // the supervisor and conn have their own
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer closeAll(null)
	proc, err := os.StartProcess("/proc/self/exe", []string{argv0}, &os.ProcAttr{
		Env:   os.Environ(),
		Files: []*os.File{null, null, null, theirs},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		return nil, err
	}
	conn, err := net.FileConn(mine)
	if err != nil {
		_ = proc.Kill() // it reads EOF and ends anyway
		_, _ = proc.Wait()
		return nil, err
	}
	c := &client{w: &wire{conn: conn.(*net.UnixConn)}, proc: proc, live: map[uint64]*Proc{}}
	go c.read()
	go func() {
		st, err := proc.Wait()
		if err == nil {
			err = errors.New(st.String())
		}
		c.fail(fmt.Errorf("the hook supervisor ended: %w", err))
		_ = conn.Close()
	}()
	return c, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close() // our copies: nothing was written through them
	}
}

// read hands each message from the supervisor to its hook, until the socket ends.
func (c *client) read() {
	for {
		m, _, err := c.w.receive(func(*message) int { return 0 })
		if err != nil {
			c.fail(fmt.Errorf("the hook supervisor ended: %w", err))
			return
		}
		c.mu.Lock()
		p := c.live[m.ID]
		if m.Op == "exited" {
			delete(c.live, m.ID)
		}
		c.mu.Unlock()
		if p == nil {
			continue
		}
		switch m.Op {
		case "started", "failed":
			p.started <- m
		case "exited":
			p.exit = Exit{Status: m.Status, Left: m.Left, CPU: m.CPU}
			close(p.done)
		}
	}
}

func (c *client) alive() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err == nil
}

func (c *client) add(p *Proc) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	c.next++
	p.id = c.next
	c.live[p.id] = p
	return nil
}

func (c *client) remove(id uint64) {
	c.mu.Lock()
	delete(c.live, id)
	c.mu.Unlock()
}

// fail ends every hook still waited for with err: the supervisor is gone, and its hooks
// with it (each dies with it by its parent-death signal).
func (c *client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	for id, p := range c.live {
		p.exit = Exit{Err: c.err}
		close(p.done)
		delete(c.live, id)
	}
}
