//go:build linux

package supervisor

import (
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// argv0 is the name the test binary is started under to act as the supervisor.
const argv0 = "rooktest-hook-supervisor"

// sweepFor bounds how long the supervisor goes on ending what a hook left (a process that
// forks as fast as it is killed).
const sweepFor = 2 * time.Second

func init() {
	if len(os.Args) == 1 && os.Args[0] == argv0 {
		os.Exit(serve())
	}
}

// server is the supervisor process.
type server struct {
	w    *wire
	self int
	mu   sync.Mutex
	// hooks are the hooks not yet reaped, by pid; ids are those whose end is not yet said
	// (running, or being swept), by the test process's id.
	hooks map[int]*hookProc
	ids   map[uint64]*hookProc
	seq   int
	// sweeping is held by one sweep at a time, so that no sweep meets a process another
	// has killed and that is still dying (its marker no longer readable).
	sweeping sync.Mutex
}

type hookProc struct {
	id     uint64
	pid    int
	mark   string
	reaped bool
	// signalled is set once the test process had the hook's group signalled (a timeout, an
	// interrupt): what is in its group then was ended with it, not left behind by it.
	signalled bool
	// announced is closed once the test process was told the hook started: its end is
	// said after that, however soon it ends.
	announced chan struct{}
}

func serve() int {
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return 3
	}
	f := os.NewFile(3, "rooktest")
	conn, err := net.FileConn(f) // a duplicate, close-on-exec as every socket here
	_ = f.Close()
	if err != nil {
		return 4
	}
	s := &server{w: &wire{conn: conn.(*net.UnixConn)}, self: os.Getpid(), hooks: map[int]*hookProc{}, ids: map[uint64]*hookProc{}}
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)
	go s.reap(chld)
	// Ctrl-C reaches the test process's group, not this one; a SIGTERM or SIGHUP sent to
	// it ends its hooks with it.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	go func() {
		<-stop
		s.killAll()
		os.Exit(0)
	}()
	s.serveRequests()
	s.killAll() // the test process is gone: so is every hook
	return 0
}

// serveRequests answers the test process until its end of the socket closes.
func (s *server) serveRequests() {
	for {
		m, files, err := s.w.receive(func(m *message) int {
			if m.Op == "start" {
				return 3
			}
			return 0
		})
		if err != nil {
			return
		}
		switch m.Op {
		case "start":
			s.start(m, files)
		case "signal":
			s.signal(m.ID, m.Sig)
		}
	}
}

// start starts a hook as the leader of a session of its own, with stdin, stdout and stderr
// the files passed, and says how it went.
func (s *server) start(m *message, files []*os.File) {
	s.mu.Lock()
	s.seq++
	h := &hookProc{id: m.ID, mark: strconv.Itoa(s.self) + "-" + strconv.Itoa(s.seq), announced: make(chan struct{})}
	attr := &syscall.ProcAttr{
		Dir:   m.Dir,
		Env:   marked(m.Env, h.mark),
		Files: []uintptr{files[0].Fd(), files[1].Fd(), files[2].Fd()},
		Sys:   &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	}
	var argv0 string
	if len(m.Argv) > 0 {
		argv0 = m.Argv[0]
	}
	pid, err := syscall.ForkExec(argv0, m.Argv, attr)
	if err == nil {
		h.pid = pid
		s.hooks[pid] = h // before the reaper can look for it: it waits for mu
		s.ids[m.ID] = h
	}
	s.mu.Unlock()
	for _, f := range files {
		_ = f.Close() // the hook has them; the test process sees EOF when it exits
	}
	reply := &message{Op: "started", ID: m.ID, Pid: pid}
	if err != nil {
		reply = &message{Op: "failed", ID: m.ID, Errno: errnoOf(err)}
	}
	_ = s.w.send(reply) // a test process that went away is seen by serveRequests
	close(h.announced)
}

// marked is env with the marker set to mark, in place of any it held (a hook that runs
// tests of its own passes its marker on to them).
func marked(env []string, mark string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, Marker+"=") {
			out = append(out, kv)
		}
	}
	return append(out, Marker+"="+mark)
}

func errnoOf(err error) syscall.Errno {
	if e, ok := err.(syscall.Errno); ok {
		return e
	}
	return syscall.EINVAL
}

// signal sends sig to a running hook's process group. Once the hook is reaped its group
// is not signalled (the number may be another's by then): what it left is swept instead.
func (s *server) signal(id uint64, sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.ids[id]; h != nil && !h.reaped {
		h.signalled = true
		_ = syscall.Kill(-h.pid, sig)
	}
}

// reap collects every child that ends: a hook's status goes to the test process once what
// it left is ended; anything else (what a sweep killed) is just collected.
func (s *server) reap(chld <-chan os.Signal) {
	for range chld {
		for {
			var ws syscall.WaitStatus
			var ru syscall.Rusage
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, &ru)
			if pid <= 0 || err != nil {
				break
			}
			s.mu.Lock()
			h := s.hooks[pid]
			if h != nil {
				h.reaped = true
				delete(s.hooks, pid)
			}
			s.mu.Unlock()
			if h != nil {
				cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
				go s.ended(h, ws, cpu)
			}
		}
	}
}

// ended sweeps what h left and says how it ended.
func (s *server) ended(h *hookProc, ws syscall.WaitStatus, cpu time.Duration) {
	left := s.sweep(h)
	s.mu.Lock()
	delete(s.ids, h.id)
	s.mu.Unlock()
	<-h.announced
	_ = s.w.send(&message{Op: "exited", ID: h.id, Status: ws, Left: left, CPU: cpu})
}

// sweep ends the processes h left: every child of the supervisor that is not a running
// hook and is h's (its session, its group or its marker), with everything below it; and,
// when no hook runs, the rest as well. It goes on until none is left: what a killed
// process had started comes to the supervisor in turn.
func (s *server) sweep(h *hookProc) []Process {
	s.sweeping.Lock()
	defer s.sweeping.Unlock()
	var left []Process
	seen := map[int]bool{}
	deadline := time.Now().Add(sweepFor)
	for {
		found := s.leftBy(h)
		s.mu.Lock()
		signalled := h.signalled
		s.mu.Unlock()
		for _, p := range found {
			_ = syscall.Kill(p.Pid, syscall.SIGKILL)
			if !seen[p.Pid] {
				seen[p.Pid] = true
				if !(signalled && p.group == h.pid) {
					left = append(left, p)
				}
			}
		}
		if (len(found) == 0 && allDead(seen)) || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Millisecond) // the killed die; their children come here
	}
	if len(left) > maxNamed {
		rest := len(left) - maxNamed + 1
		left = append(left[:maxNamed-1], Process{Command: fmt.Sprintf("and %d more", rest)})
	}
	return left
}

// allDead reports whether every process of pids has died: a zombie, or reaped. One that
// is still exiting may hold its files a moment longer, so it is waited for too.
func allDead(pids map[int]bool) bool {
	for pid := range pids {
		if st, ok := readStat(pid); ok && st.state != 'Z' && st.state != 'X' {
			return false
		}
	}
	return true
}

// leftBy lists the live processes under the supervisor that h left behind, each with what
// it started.
func (s *server) leftBy(h *hookProc) []Process {
	// The children are listed before the hooks are: a hook is started and entered in
	// s.hooks under s.mu, so every hook among the children is in the snapshot below, and a
	// hook started since is not among the children.
	kids := childrenOf(s.self)
	s.mu.Lock()
	others := map[int]string{} // the other hooks whose end is not yet said, running or not
	for _, o := range s.ids {
		if o != h {
			others[o.pid] = o.mark
		}
	}
	live := make(map[int]bool, len(s.hooks))
	for pid := range s.hooks {
		live[pid] = true
	}
	s.mu.Unlock()
	var out []Process
	for _, kid := range kids {
		if live[kid] {
			continue
		}
		// One that is dying (killed with its hook's group) is not named, but what it
		// started may still run below it.
		st, ok := readStat(kid)
		if !ok {
			continue // gone
		}
		mark := markOf(kid)
		if ownedBy(st, mark, others) {
			continue // another hook's: it is swept when that hook ends
		}
		unsure := st.sid != h.pid && st.pgrp != h.pid && mark != h.mark
		if unsure && len(others) > 0 {
			continue // maybe another hook's: it is ended when no other hook is left
		}
		for _, pid := range subtree(kid) {
			if st, ok := readStat(pid); ok && !st.exiting {
				out = append(out, Process{Pid: pid, Command: commandLine(pid), Unsure: unsure, group: st.pgrp})
			}
		}
	}
	return out
}

// ownedBy reports whether a process is one of hooks' by its session, its group or its
// marker.
func ownedBy(st stat, mark string, hooks map[int]string) bool {
	for pid, m := range hooks {
		if st.sid == pid || st.pgrp == pid || (mark != "" && mark == m) {
			return true
		}
	}
	return false
}

// killAll ends every process under the supervisor.
func (s *server) killAll() {
	deadline := time.Now().Add(sweepFor)
	for time.Now().Before(deadline) {
		kids := childrenOf(s.self)
		live := 0
		for _, kid := range kids {
			for _, pid := range subtree(kid) {
				if st, ok := readStat(pid); ok && !st.exiting {
					live++
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
		if live == 0 {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}
