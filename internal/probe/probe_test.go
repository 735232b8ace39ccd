package probe

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakehook"
	"github.com/rookgo/rookgo/internal/spec"
)

func TestMain(m *testing.M) {
	fakehook.Main()
	os.Exit(m.Run())
}

// The probe calls the hooks as a run does: in lifecycle order, collect at least its
// delay_seconds after close, the conversation from open threaded into execute.
func TestRunKeepsTheLifecycle(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.jsonl")
	p, err := spec.ParseProfile(filepath.Join(dir, "p.yaml"), dir, fmt.Appendf(nil, `id: p
hooks:
  open: {command: [%[1]q]}
  execute: {command: [%[1]q]}
  close: {command: [%[1]q]}
  collect: {command: [%[1]q], delay_seconds: 0.3}
hook_env: {FAKEHOOK: "1", FAKEHOOK_LOG: %[2]q}
`, os.Args[0], log))
	require.NoError(t, err)
	rep, err := Run(context.Background(), p, Config{Workspace: dir, Agent: "fake", Env: os.Environ()})
	require.NoError(t, err)
	require.True(t, rep.OK())
	var order []string
	for _, ph := range rep.Phases {
		order = append(order, string(ph.Phase))
	}
	assert.Equal(t, []string{"open", "execute", "close", "collect"}, order)
	closed, collected := rep.Phases[2].Result.Ended, rep.Phases[3].Result.Started
	assert.GreaterOrEqual(t, collected.Sub(closed), 300*time.Millisecond, "delay_seconds is kept")
	assert.Equal(t, spec.Capabilities{MultiTurn: true, Calls: true, Usage: true}, rep.Observed)

	calls, err := fakehook.ReadLog(log)
	require.NoError(t, err)
	require.Len(t, calls, 4)
	assert.Equal(t, Goal, calls[1].Stdin)
	assert.Equal(t, "1", calls[1].Env["ROOK_TURN"])
	assert.Equal(t, "conv-1", calls[2].Env["ROOK_CONVERSATION"], "the conversation open returned reaches close")
}
