package hook

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// process is a started hook: under the supervisor on Linux, a plain child elsewhere.
type process interface {
	// terminate asks the hook's process group to stop (SIGTERM), so that a hook interrupted
	// or out of time can end its session.
	terminate()
	// kill ends the hook's process group.
	kill()
	// done is closed when the hook has ended, and what it left running with it.
	done() <-chan struct{}
	// ended says how; it is valid once done is closed.
	ended() ended
}

// ended is how a hook ended.
type ended struct {
	exited bool   // it exited, rather than being killed by a signal
	code   int    // its exit status, -1 when killed
	how    string // the signal that killed it ("signal: killed")
	// left names the processes it left running, ended since.
	left []string
	// err is set when how it ended could not be seen.
	err error
	// cpu is the user and system time it used, 0 when unknown.
	cpu time.Duration
}

// endedIn bounds the wait for a hook killed at the end of its grace: the kernel ends it at
// once, and the supervisor takes a few seconds at most to end what it left.
const endedIn = 10 * time.Second

// stdio are the files a hook is started with: its ends of three pipes (or the null device
// for an empty stdin), and ours.
type stdio struct {
	child          [3]*os.File
	stdin          *os.File // nil for an empty stdin
	stdout, stderr *os.File
}

func openStdio(withStdin bool) (*stdio, error) {
	sio := &stdio{}
	var err error
	if withStdin {
		sio.child[0], sio.stdin, err = os.Pipe()
	} else {
		sio.child[0], err = os.Open(os.DevNull)
	}
	if err == nil {
		sio.stdout, sio.child[1], err = os.Pipe()
	}
	if err == nil {
		sio.stderr, sio.child[2], err = os.Pipe()
	}
	if err != nil {
		sio.closeChild()
		sio.closeOurs()
		return nil, err
	}
	return sio, nil
}

// closeChild closes our copies of the hook's ends, once it has them.
func (sio *stdio) closeChild() {
	for _, f := range sio.child {
		if f != nil {
			_ = f.Close()
		}
	}
}

func (sio *stdio) closeOurs() {
	for _, f := range []*os.File{sio.stdin, sio.stdout, sio.stderr} {
		if f != nil {
			_ = f.Close()
		}
	}
}

// dedupEnv keeps the last value of every variable env sets more than once, as exec.Cmd
// does, so that the value a caller appended wins however the hook reads its environment.
// A variable holding a NUL byte is refused.
func dedupEnv(env []string) ([]string, error) {
	out := make([]string, 0, len(env))
	saw := make(map[string]bool, len(env))
	for i := len(env) - 1; i >= 0; i-- {
		kv := env[i]
		if strings.IndexByte(kv, 0) >= 0 {
			return nil, fmt.Errorf("environment variable %.40q holds a NUL byte", kv)
		}
		k, _, _ := strings.Cut(kv, "=")
		if saw[k] {
			continue
		}
		saw[k] = true
		out = append(out, kv)
	}
	slices.Reverse(out)
	return out, nil
}
