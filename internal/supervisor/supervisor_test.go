//go:build linux

package supervisor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hook is a started sh script and its output.
type hook struct {
	p      *Proc
	stdout chan []byte
}

// run starts script under sh with env under the supervisor, its stdin empty.
func run(t *testing.T, script string, env []string, args ...string) *hook {
	t.Helper()
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	p, err := Start(append([]string{"/bin/sh", "-c", script, "sh"}, args...), t.TempDir(), env, null, w, w)
	w.Close()
	require.NoError(t, err)
	h := &hook{p: p, stdout: make(chan []byte, 1)}
	go func() {
		b, _ := io.ReadAll(r)
		r.Close()
		h.stdout <- b
	}()
	return h
}

func (h *hook) wait(t *testing.T) (Exit, string) {
	t.Helper()
	select {
	case <-h.p.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the hook did not end")
	}
	return h.p.Wait(), string(<-h.stdout)
}

// Arguments and environment values reach the hook byte for byte, however long and
// whatever their encoding (a frame far larger than one write of the socket), and the
// supervisor's marker replaces one the environment already held.
func TestBytesReachTheHookUnchanged(t *testing.T) {
	big := strings.Repeat("é\xff", 30<<10) // near the kernel's 128 KiB for one variable
	arg := "a\xfe\x01b $& `x`"
	h := run(t, `printf '%s' "$BIG" | wc -c; printf '%s|' "$1" "$`+Marker+`"`, []string{"BIG=" + big, Marker + "=outer", "PATH=/usr/bin:/bin"}, arg)
	e, out := h.wait(t)
	require.NoError(t, e.Err)
	require.True(t, e.Status.Exited(), "status %v", e.Status)
	lines := strings.SplitN(out, "\n", 2)
	require.Len(t, lines, 2, out)
	assert.Equal(t, strconv.Itoa(len(big)), strings.TrimSpace(lines[0]))
	parts := strings.Split(lines[1], "|")
	require.Len(t, parts, 3, out)
	assert.Equal(t, arg, parts[0])
	assert.NotEqual(t, "outer", parts[1])
	assert.NotEmpty(t, parts[1])
	assert.Empty(t, e.Left)
}

// A program that cannot be started is an *fs.PathError naming it, as os.StartProcess's.
func TestAProgramThatCannotStart(t *testing.T) {
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	_, err = Start([]string{"/nonexistent/hook"}, t.TempDir(), nil, null, null, null)
	require.Error(t, err)
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "/nonexistent/hook", pe.Path)
	assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
}

// SIGTERM reaches the hook's process group while it runs, and the hook's end says how.
func TestSignalReachesTheHooksGroup(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "child")
	h := run(t, `sleep 300 & echo $! > "$1"; wait`, nil, pidfile)
	child := waitPid(t, pidfile)
	require.NoError(t, h.p.Signal(syscall.SIGTERM))
	e, _ := h.wait(t)
	require.NoError(t, e.Err)
	assert.True(t, e.Status.Signaled(), "status %v", e.Status)
	assert.Equal(t, syscall.SIGTERM, e.Status.Signal())
	assert.False(t, alive(child), "the hook's child outlived the hook")
	assert.NoError(t, h.p.Signal(syscall.SIGKILL), "signalling an ended hook does nothing")
}

// A process that left the hook's session and scrubbed its environment cannot be told
// apart from another running hook's: it is left alone while another hook runs, and ended,
// named as unsure, when the last hook ends.
func TestWhatCannotBeToldApartWaitsForTheLastHook(t *testing.T) {
	dir := t.TempDir()
	daemon := filepath.Join(dir, "daemon")
	other := run(t, `sleep 300`, nil)
	h := run(t, `env -i setsid -f /bin/sh -c 'echo $$ > "$1"; exec sleep 300' sh "$1" >/dev/null 2>&1
		while [ ! -s "$1" ]; do sleep 0.01; done`, nil, daemon) // it has left the session
	e, _ := h.wait(t)
	require.NoError(t, e.Err)
	pid := waitPid(t, daemon)
	assert.Empty(t, e.Left, "another hook runs: whose it is cannot be told")
	assert.True(t, alive(pid))

	require.NoError(t, other.p.Signal(syscall.SIGKILL))
	e, _ = other.wait(t)
	require.Len(t, e.Left, 1)
	assert.Equal(t, pid, e.Left[0].Pid)
	assert.Equal(t, "sleep 300", e.Left[0].Command)
	assert.True(t, e.Left[0].Unsure)
	assert.False(t, alive(pid), "ended when the last hook ended")
}

// A hook that leaves more processes than an Exit names is told the count of the rest.
func TestManyLeftAreCounted(t *testing.T) {
	h := run(t, `i=0; while [ $i -lt 30 ]; do sleep 300 & i=$((i+1)); done`, nil)
	e, _ := h.wait(t)
	require.NoError(t, e.Err)
	require.Len(t, e.Left, maxNamed)
	assert.Equal(t, "and 11 more", e.Left[maxNamed-1].Command)
	for _, p := range e.Left[:maxNamed-1] {
		assert.Contains(t, p.Command, "sleep 300", "sleep, or the shell about to be it")
		assert.False(t, alive(p.Pid))
	}
}

func waitPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(path)
		pid, _ = strconv.Atoi(string(bytes.TrimSpace(b)))
		return err == nil && pid > 0
	}, 10*time.Second, 5*time.Millisecond, "no pid in %s", path)
	return pid
}

func alive(pid int) bool {
	st, ok := readStat(pid)
	return ok && !st.exiting
}

// Hooks started while others end are never taken for what another left: a hook that has
// just started is in no session, group or marker of the one being swept, yet it is a hook.
func TestHooksStartingWhileOthersEndAreLeftAlone(t *testing.T) {
	const workers, each = 4, 25
	errs := make(chan string, workers*each)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				null, err := os.Open(os.DevNull)
				if err != nil {
					errs <- err.Error()
					return
				}
				p, err := Start([]string{"/bin/sh", "-c", "exit 0"}, "/", nil, null, null, null)
				null.Close()
				if err != nil {
					errs <- "start: " + err.Error()
					continue
				}
				e := p.Wait()
				if e.Err != nil || !e.Status.Exited() || e.Status.ExitStatus() != 0 || len(e.Left) > 0 {
					errs <- fmt.Sprintf("status %v, left %v, err %v", e.Status, e.Left, e.Err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error("a hook was ended by another's sweep: " + e)
	}
}

// How much CPU a hook used comes back with how it ended: what the run's in-flight limit
// reads. A hook that spins for a while has used some; one that only sleeps, no more than
// starting it took. (On a loaded machine starting sh and sleep took 110 ms of CPU: the loop's
// own CPU is what is compared, over that.)
func TestExitCarriesTheHooksCPU(t *testing.T) {
	busy := run(t, `i=0; while [ $i -lt 500000 ]; do i=$((i+1)); done; echo done`, nil)
	idle := run(t, `sleep 0.2; echo done`, nil)
	be, out := busy.wait(t)
	assert.Equal(t, "done\n", out)
	ie, _ := idle.wait(t)
	assert.Greater(t, be.CPU, 50*time.Millisecond, "a loop of 500,000 steps in sh")
	assert.Greater(t, be.CPU-ie.CPU, 50*time.Millisecond, "the loop's CPU shows over what the sleeping hook used: %v against %v", be.CPU, ie.CPU)
}
