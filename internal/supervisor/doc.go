// Package supervisor starts hooks under a process of their own: the test binary re-executed
// once per test process, which is the child subreaper of the hooks and of nothing else.
//
// Whatever a hook leaves behind when it exits (a child in its group, a child that moved to a
// group of its own with setpgid, a double-forked daemon in a session of its own) comes to
// the supervisor, which ends it and names it in the hook's Exit. Processes the test itself
// starts are never its children, so they are never touched. The supervisor reads the test
// process's end of a socket; when the test process dies (even by SIGKILL) the socket ends,
// and the supervisor kills every process under it and exits.
//
// One supervisor serves every hook of the process, so a hook costs one message each way
// rather than a second process start (re-executing the test binary takes about 10 ms,
// against about 140 ms for a Node hook). A hook runs as the leader of a session of its own
// and carries a marker variable (Marker) in its environment; a process it left is told
// apart from another running hook's by its session, its process group, or that marker.
// One that changed all three (setsid and a scrubbed environment) while other hooks run is
// ended when no hook runs, and named as left by a hook of the run (Process.Unsure).
//
// The supervisor runs on Linux; elsewhere Start returns errors.ErrUnsupported and callers
// start hooks themselves.
package supervisor

import (
	"syscall"
	"time"
)

// Marker is the environment variable the supervisor adds to every hook's environment: a
// value of its own per hook, by which the processes a hook leaves are told apart.
const Marker = "ROOKTEST_HOOK_MARK"

// Exit is how a hook ended.
type Exit struct {
	// Status is the hook's wait status.
	Status syscall.WaitStatus
	// Left are the processes the hook left running when it exited, ended since.
	Left []Process
	// CPU is the user and system time the hook and the children it waited for used.
	CPU time.Duration
	// Err is set when the supervisor ended before it could say how the hook ended (the
	// hook was killed with it); Status is then meaningless.
	Err error
}

// Process is one process a hook left running.
type Process struct {
	Pid int
	// Command is its command line, spaces between the arguments, cut at 200 bytes.
	Command string
	// Unsure is set when it could not be told which hook of the run left it: it was in a
	// session of its own, without the marker.
	Unsure bool

	group int // its process group, when it was found
}

// maxNamed bounds the processes an Exit names; the rest are counted in a last entry.
const maxNamed = 20
