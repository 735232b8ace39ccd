package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakehook"
	"github.com/rookgo/rookgo/internal/spec"
)

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
	rep, err := probeHooks(context.Background(), p, probeConfig{Workspace: dir, Agent: "fake", Env: os.Environ()})
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
	assert.Equal(t, probeGoal, calls[1].Stdin)
	assert.Equal(t, "1", calls[1].Env["ROOK_TURN"])
	assert.Equal(t, "conv-1", calls[2].Env["ROOK_CONVERSATION"], "the conversation open returned reaches close")
}

// A hook whose agent refused its credentials (HTTP 401 or 403) gets a fix naming the
// profile's credential variables, after the hook's own word on how each is sent.
func TestRefusedCredentialsNameTheVariables(t *testing.T) {
	dir := t.TempDir()
	p, err := spec.ParseProfile(filepath.Join(dir, "p.yaml"), dir, fmt.Appendf(nil, `id: p
hooks:
  execute: {command: [%[1]q]}
env:
  - {variable: SHOP_TOKEN, secret: true}
  - {variable: SHOP_REGION, secret: false}
hook_env: {FAKEHOOK: "1", FAKEHOOK_EXECUTE: "exit:1:POST https://shop.example/chat answered 401: bad token (the request sends SHOP_TOKEN in the Authorization header)"}
`, os.Args[0]))
	require.NoError(t, err)
	rep, err := probeHooks(context.Background(), p, probeConfig{Workspace: dir, Agent: "fake", Env: append(os.Environ(), "SHOP_TOKEN=x", "SHOP_REGION=eu")})
	require.NoError(t, err)
	require.False(t, rep.OK())
	var fixes []string
	for _, ph := range rep.Phases {
		fixes = append(fixes, ph.Fixes...)
	}
	require.Len(t, fixes, 1)
	assert.Contains(t, fixes[0], "the agent refused the request's credentials")
	assert.Contains(t, fixes[0], "SHOP_TOKEN in the Authorization header")
	assert.Contains(t, fixes[0], "check the value of SHOP_TOKEN (the profile's credentials")
	assert.NotContains(t, fixes[0], "SHOP_REGION")
}

// The probe gives the hooks what a run gives them (the attempt's canary, a trace context),
// so a hook written as docs/redteam.md shows passes under it; a hook that fails is told
// which variable its script reads that the probe's environment did not hold.
func TestProbeGivesWhatARunGives(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "open.sh"), []byte(`[ -n "$ROOK_CANARY" ] || { echo "no ROOK_CANARY" >&2; exit 1; }
printf 'secret %s' "$ROOK_CANARY" > "$ROOK_STATE_DIR/notes.json"
echo '{"conversation": "c-1"}'
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "execute.sh"), []byte(`[ -n "$TRACEPARENT" ] || { echo "no TRACEPARENT" >&2; exit 1; }
[ -n "$ROOK_CANARY" ] || { echo "no ROOK_CANARY" >&2; exit 1; }
region="${SHOP_REGION}"
[ -n "$region" ] || { echo "which region?" >&2; exit 1; }
echo '{"output": "hi"}'
`), 0o644))
	p, err := spec.ParseProfile(filepath.Join(dir, "p.yaml"), dir, []byte(`id: p
hooks:
  open: {command: [sh, open.sh]}
  execute: {command: [sh, execute.sh]}
`))
	require.NoError(t, err)
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "SHOP_REGION=") })
	rep, err := probeHooks(context.Background(), p, probeConfig{Workspace: dir, Agent: "fake", Env: env})
	require.NoError(t, err)
	require.Len(t, rep.Phases, 2)
	assert.True(t, rep.Phases[0].OK(), "open had its canary: %v %v", rep.Phases[0].Err, rep.Phases[0].Fixes)
	require.False(t, rep.Phases[1].OK())
	fixes := strings.Join(rep.Phases[1].Fixes, "\n")
	assert.Contains(t, fixes, "execute.sh reads SHOP_REGION, which this probe's environment did not hold")
	assert.NotContains(t, fixes, "ROOK_CANARY")
	assert.NotContains(t, fixes, "TRACEPARENT")

	rep, err = probeHooks(context.Background(), p, probeConfig{Workspace: dir, Agent: "fake", Env: append(env, "SHOP_REGION=eu")})
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%v", rep.Phases[1].Fixes)
}

// A profile with no command to call (a Go agent's, or recorded traces) is refused, saying
// why and what to run instead.
func TestAProfileWithNoCommandIsNotProbed(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "recorded"), 0o755))
	for body, want := range map[string]string{
		"id: p\nhooks: {go: shop}\n":         "profile p's hooks are the Go agent go:shop, which runs inside its test binary",
		"id: p\nhooks: {traces: recorded}\n": "profile p judges traces recorded in " + filepath.Join(dir, "recorded") + " (hooks.traces): there is no agent to call",
	} {
		p, err := spec.ParseProfile(filepath.Join(dir, "p.yaml"), dir, []byte(body))
		require.NoError(t, err)
		_, err = probeHooks(t.Context(), p, probeConfig{})
		require.Error(t, err)
		assert.Contains(t, err.Error(), want)
	}
}
