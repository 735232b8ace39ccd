//go:build linux

package hook_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/hook"
)

// Whatever a hook leaves running when it exits is ended and named, wherever it went: a
// child in the hook's group, one in a group of its own, a daemon in a session of its own,
// and one whose parent exited before the hook did (a double fork). A hook that leaves
// nothing names nothing.
func TestWhatAHookLeavesIsEndedAndNamed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the supervisor that finds what left the hook's group is Linux's")
	}
	for _, action := range []string{"leave-child", "own-group", "escape", "double-fork"} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			pidfile := filepath.Join(t.TempDir(), "left.pid")
			res, err := hook.Run(context.Background(), fake(t, "execute", "FAKEHOOK_EXECUTE="+action, "FAKEHOOK_PIDFILE="+pidfile))
			require.NoError(t, err, res.Stderr)
			pid := readPid(t, pidfile)
			require.Len(t, res.Left, 1, "what the hook left")
			assert.Contains(t, res.Left[0], fmt.Sprintf("pid %d: ", pid))
			assert.Contains(t, res.Left[0], filepath.Base(os.Args[0]), "named by its command line (or its name when that is gone)")
			assert.NotContains(t, res.Left[0], "could not be told", "a hook running alone is sure of what it left")
			assert.False(t, alive(pid), "pid %d, left by the hook, is still running: %s; left: %q", pid, ps([]int{pid}), res.Left)
		})
	}
	res, err := hook.Run(context.Background(), fake(t, "execute"))
	require.NoError(t, err)
	assert.Empty(t, res.Left)
}

// The processes the test itself starts are never the hooks' business: a server in a
// session of its own, started before the hooks and running through them, is alive when
// they have ended, and its Wait returns its own exit status.
func TestTheTestsOwnProcessesAreLeftAlone(t *testing.T) {
	server := exec.Command("sh", "-c", "read line; exit 7")
	server.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	stdin, err := server.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, server.Start())
	for _, action := range []string{"escape", "double-fork", "leave-child", "reply:hello"} {
		pidfile := filepath.Join(t.TempDir(), "left.pid")
		_, err := hook.Run(context.Background(), fake(t, "execute", "FAKEHOOK_EXECUTE="+action, "FAKEHOOK_PIDFILE="+pidfile))
		require.NoError(t, err, action)
	}
	require.True(t, alive(server.Process.Pid), "the test's own server was killed by a hook's sweep")
	_, err = stdin.Write([]byte("stop\n"))
	require.NoError(t, err)
	err = server.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "its Wait returns its own status")
	assert.Equal(t, 7, exit.ExitCode())
}

// When the test process is killed (SIGKILL: nothing of it runs again), its hooks and
// everything they started end with it. A runner (this binary, HOOKTEST_RUNNER) runs a hook
// that starts a child and hangs; the test kills the runner, and every process that was
// under it is gone.
func TestKilledRunnerTakesItsHooksWithIt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the supervisor that dies with the test process is Linux's")
	}
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	runner := exec.Command(os.Args[0])
	runner.Env = append(os.Environ(), "HOOKTEST_RUNNER=1", "FAKEHOOK_EXECUTE=hang-child", "FAKEHOOK_PIDFILE="+pidfile)
	runner.Stderr = os.Stderr
	require.NoError(t, runner.Start())
	child := 0
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(pidfile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && child > 0
	}, 10*time.Second, 10*time.Millisecond, "the hook's child never started")
	under := descendants(runner.Process.Pid)
	t.Logf("under the runner before SIGKILL: %s", ps(under))
	require.Contains(t, under, child)
	require.NoError(t, runner.Process.Kill())
	_ = runner.Wait() // killed, as meant
	assert.Eventually(t, func() bool {
		for _, pid := range under {
			if alive(pid) {
				return false
			}
		}
		return true
	}, 10*time.Second, 20*time.Millisecond, "still running after the runner was killed: %s", ps(under))
	t.Logf("of those, after SIGKILL: %s", ps(under))
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	return pid
}

// alive reports whether pid runs: it exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil && runtime.GOOS != "linux"
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z'
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	parent := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			parent[ppid] = append(parent[ppid], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, parent[p]...)
		queue = append(queue, parent[p]...)
	}
	return out
}

// ps is a line for each pid: whether it runs, and its command line.
func ps(pids []int) string {
	var b strings.Builder
	for _, pid := range pids {
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		state := "gone"
		if alive(pid) {
			state = "running"
		}
		fmt.Fprintf(&b, "\n  %d %s %s", pid, state, strings.ReplaceAll(strings.TrimRight(string(cmd), "\x00"), "\x00", " "))
	}
	return b.String()
}
