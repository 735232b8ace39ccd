package hook_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakehook"
	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/record"
)

func TestMain(m *testing.M) {
	if os.Getenv("HOOKTEST_RUNNER") != "" {
		runAsRunner()
	}
	fakehook.Main()
	os.Exit(m.Run())
}

func fake(t *testing.T, phase string, env ...string) hook.Spec {
	t.Helper()
	return hook.Spec{
		Argv:    []string{os.Args[0], phase},
		Env:     append(append(os.Environ(), "FAKEHOOK=1"), env...),
		Timeout: 10 * time.Second,
	}
}

func TestRunPassesStdinAndCapturesStdout(t *testing.T) {
	s := fake(t, "execute")
	s.Stdin = "what's my balance?\n$(rm -rf /) `quotes` \"and\" newlines"
	res, err := hook.Run(context.Background(), s)
	require.NoError(t, err)
	out, err := hook.ParseOutput(res.Stdout, true)
	require.NoError(t, err)
	assert.Equal(t, "echo: "+s.Stdin, out.Reply)
	assert.Equal(t, "conv-1", out.Conversation)
	assert.True(t, out.CallsObserved)
	assert.Empty(t, out.Calls)
	assert.Equal(t, record.Tokens(10, 5), out.Usage)
	assert.Equal(t, 0, res.ExitCode)
}

func TestRunNonZeroExitKeepsStderr(t *testing.T) {
	var lines []string
	s := fake(t, "execute", "FAKEHOOK_EXECUTE=exit:3:upstream said 503")
	s.OnStderr = func(l string) { lines = append(lines, l) }
	res, err := hook.Run(context.Background(), s)
	require.Error(t, err)
	assert.Equal(t, "exited with status 3", err.Error())
	assert.Equal(t, 3, res.ExitCode)
	assert.Contains(t, res.Stderr, "upstream said 503")
	assert.Equal(t, []string{"fake execute hook running", "upstream said 503"}, lines, "stderr is streamed line by line")
}

func TestRunTimeoutKillsTheProcessGroup(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	s := fake(t, "collect", "FAKEHOOK_COLLECT=hang-child", "FAKEHOOK_PIDFILE="+pidfile)
	// Long enough for a race-built test binary to start and write its child's pid on a
	// loaded machine (a cold CI build runs beside it).
	s.Timeout = 2 * time.Second
	start := time.Now()
	res, err := hook.Run(context.Background(), s)
	require.Error(t, err)
	assert.True(t, res.TimedOut)
	assert.Contains(t, err.Error(), "timed out after 2s")
	assert.Less(t, time.Since(start), 10*time.Second, "the hook must be killed at its timeout, not waited for")

	b, err := os.ReadFile(pidfile)
	require.NoError(t, err, "the hook should have started a child")
	pid, err := strconv.Atoi(string(b))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return processGone(pid) }, 5*time.Second, 50*time.Millisecond,
		"the hook's child %d survived the timeout", pid)
}

func TestRunStdoutCap(t *testing.T) {
	s := fake(t, "execute", "FAKEHOOK_EXECUTE=flood")
	s.MaxStdout = 1 << 20
	res, err := hook.Run(context.Background(), s)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than 1048576 bytes on stdout")
	assert.True(t, res.StdoutOverflow)
	assert.Len(t, res.Stdout, 1<<20)
}

func TestRunMissingProgram(t *testing.T) {
	_, err := hook.Run(context.Background(), hook.Spec{Argv: []string{"/nonexistent/hook"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "start /nonexistent/hook")
}

func TestRunEmptyStdinOutsideExecute(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	_, err := hook.Run(context.Background(), fake(t, "close", "FAKEHOOK_LOG="+log))
	require.NoError(t, err)
	calls, err := fakehook.ReadLog(log)
	require.NoError(t, err)
	require.Len(t, calls, 1)
	assert.Equal(t, "", calls[0].Stdin)
	assert.Equal(t, []string{"close"}, calls[0].Args)
}

// An interrupted run asks each hook's group to stop (SIGTERM), so a hook can end its
// session; one that ignores it is killed a grace period later.
func TestRunInterruptTerminatesThenKills(t *testing.T) {
	for _, tc := range []struct {
		action   string
		min, max time.Duration
	}{
		{"trap-term", 0, hook.KillGrace},
		{"ignore-term", hook.KillGrace, hook.KillGrace + 3*time.Second},
	} {
		t.Run(tc.action, func(t *testing.T) {
			s := fake(t, "execute", "FAKEHOOK_EXECUTE="+tc.action)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Cancel once the hook says its trap is set: a signal sent before then would
			// find the default action, not the hook's.
			cancelled := make(chan time.Time, 1)
			s.OnStderr = func(line string) {
				if line == "fake hook ready" {
					cancelled <- time.Now()
					cancel()
				}
			}
			res, err := hook.Run(ctx, s)
			require.Len(t, cancelled, 1, "the hook said it was ready: %s", res.Stderr)
			elapsed := time.Since(<-cancelled)
			require.Error(t, err)
			assert.True(t, res.Stopped)
			assert.Contains(t, err.Error(), "stopped: context canceled")
			assert.GreaterOrEqual(t, elapsed, tc.min)
			assert.Less(t, elapsed, tc.max)
			if tc.action == "trap-term" {
				assert.Contains(t, res.Stderr, "fake hook got SIGTERM", "SIGTERM comes first")
			}
		})
	}
}

// A hook flooding stderr streams at most MaxStreamedStderr to the log, then says so; its
// kept tail stays bounded.
func TestRunStderrFloodIsBounded(t *testing.T) {
	s := fake(t, "execute", "FAKEHOOK_EXECUTE=flood-stderr")
	var streamed, lines int
	var last string
	s.OnStderr = func(line string) { streamed += len(line); lines++; last = line }
	res, err := hook.Run(context.Background(), s)
	require.NoError(t, err)
	assert.LessOrEqual(t, streamed, hook.MaxStreamedStderr+200)
	assert.Equal(t, "stderr truncated after 1 MiB; the tail is kept in the records", last)
	assert.LessOrEqual(t, len(res.Stderr), 17<<10)
}

func TestRunStderrFloodOfShortLines(t *testing.T) {
	s := fake(t, "execute", "FAKEHOOK_EXECUTE=flood-stderr-lines")
	var streamed int
	var last string
	s.OnStderr = func(line string) { streamed += len(line); last = line }
	_, err := hook.Run(context.Background(), s)
	require.NoError(t, err)
	assert.LessOrEqual(t, streamed, hook.MaxStreamedStderr+len(last), "1 MiB of lines, then the notice")
	assert.Equal(t, "stderr truncated after 1 MiB; the tail is kept in the records", last)
}

// A hook that exited 0 is a success, whatever the clock says when Wait returns: here it
// replied at once and a child it left kept its stdout open past the timeout, so the
// deadline's SIGTERM reached a group whose leader had already exited.
func TestRunExitZeroBeforeTheTimeoutIsNotATimeout(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	s := fake(t, "execute", "FAKEHOOK_EXECUTE=hold-stdout", "FAKEHOOK_PIDFILE="+pidfile)
	s.Timeout = 2 * time.Second // time for a race-built binary to start, on a loaded machine
	res, err := hook.Run(context.Background(), s)
	require.NoError(t, err)
	assert.False(t, res.TimedOut)
	assert.Equal(t, 0, res.ExitCode)
	out, err := hook.ParseOutput(res.Stdout, true)
	require.NoError(t, err)
	assert.Equal(t, "left a child holding stdout", out.Reply)
}

// runAsRunner is TestKilledRunnerTakesItsHooksWithIt's runner: it runs one execute hook
// with no timeout, and is killed while it waits.
func runAsRunner() {
	_ = os.Unsetenv("HOOKTEST_RUNNER") // the hook is this binary too
	s := hook.Spec{Argv: []string{os.Args[0], "execute"}, Env: append(os.Environ(), "FAKEHOOK=1")}
	_, err := hook.Run(context.Background(), s)
	fmt.Fprintln(os.Stderr, "the runner's hook ended:", err)
	os.Exit(1)
}
