package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/spec"
)

// probeModule writes agent fake's profile p, every phase this test binary as a hook, with
// hookEnv added to its hook_env.
func probeModule(t *testing.T, hookEnv string) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "go.mod", "module example.com/agents\n\ngo 1.26\n")
	write(t, dir, "profiles/fake/p.yaml", fmt.Sprintf(`# The fake agent.
id: p
hooks:
  prepare: {command: [%[1]q]}
  open: {command: [%[1]q]}
  execute: {command: [%[1]q]}
  close: {command: [%[1]q]}
  collect: {command: [%[1]q]}
hook_env:
  FAKEHOOK: "1"
%[2]scapabilities:
  multi_turn: false
`, os.Args[0], hookEnv))
	helloScenario(t, dir, "SC-1")
	return dir
}

// rookgen probe calls every hook once and says which capabilities it saw; -write puts them
// into the profile and regenerates.
func TestProbeObservesCapabilities(t *testing.T) {
	dir := probeModule(t, "")
	var stdout, stderr bytes.Buffer
	code := run([]string{"probe", "fake/p", "-write", "-root", dir}, &stdout, &stderr)
	out := stdout.String()
	require.Equal(t, 0, code, out+stderr.String())
	for _, ph := range []string{"prepare", "open", "execute", "close", "collect"} {
		assert.Contains(t, out, "\n"+ph+": ok in ")
	}
	assert.Contains(t, out, `multi_turn yes (a "conversation" id from open or execute); the profile declares multi_turn: false (-write sets it)`)
	assert.Contains(t, out, "calls      yes")
	assert.Contains(t, out, "usage      yes")
	assert.Contains(t, out, "usage seen: input 10, output 5 tokens")
	assert.Contains(t, out, "wrote the observed capabilities into profiles/fake/p.yaml")

	data, err := os.ReadFile(filepath.Join(dir, "profiles/fake/p.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "# The fake agent.\n", "comments are kept")
	p, err := spec.LoadProfile(filepath.Join(dir, "profiles/fake/p.yaml"), filepath.Join(dir, "profiles/fake"))
	require.NoError(t, err)
	assert.Equal(t, spec.Capabilities{MultiTurn: true, Calls: true, Usage: true}, p.Capabilities)
	assert.FileExists(t, filepath.Join(dir, "scenarios/fake/p_rook_test.go"), "regenerated for the new profile")
}

// Each breach of the hook contract is named with its fix, and the probe exits 1.
func TestProbeNamesContractBreaches(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	tests := []struct {
		env  string
		want []string
	}{
		{`  FAKEHOOK_EXECUTE: "json:hello there"` + "\n", []string{"execute: FAILED", "fix: print exactly one JSON object on stdout", "stdout is not JSON"}},
		{`  FAKEHOOK_EXECUTE: 'json:{"output": "a"} {"output": "b"}'` + "\n", []string{"stdout holds more than one JSON value"}},
		{`  FAKEHOOK_EXECUTE: "json:"` + "\n", []string{"printed nothing on stdout"}},
		{`  FAKEHOOK_EXECUTE: 'json:{"reply": "hi"}'` + "\n", []string{`stdout has no "output"`, `"reply" is not read`}},
		{`  FAKEHOOK_OPEN: "exit:4:the agent is down"` + "\n", []string{"open: FAILED", "exited with status 4", "the agent is down", "close: ok"}},
		{fmt.Sprintf("  FAKEHOOK_CLOSE: leave-child\n  FAKEHOOK_PIDFILE: %q\n", pidfile), []string{"close: FAILED", "left processes of its own running (ended since: pid "}},
		{`  FAKEHOOK_COLLECT: "json:\u001b[31mred"` + "\n", []string{`"\x1b[31mred"`}},
	}
	for _, tc := range tests {
		dir := probeModule(t, tc.env)
		var stdout, stderr bytes.Buffer
		code := run([]string{"probe", "fake/p", "-root", dir}, &stdout, &stderr)
		assert.Equal(t, 1, code, tc.env)
		for _, w := range tc.want {
			assert.Contains(t, stdout.String(), w, tc.env)
		}
		assert.NotContains(t, stdout.String(), "\x1b", "what a hook prints is escaped")
	}
}

// -write after a failed probe writes nothing, and a declared capability the probe did not
// see is turned off only with -force.
func TestProbeWriteOnlyWhatASuccessfulProbeSaw(t *testing.T) {
	declaredAll := "  FAKEHOOK_OPEN: \"exit:4:the agent is down\"\n"
	dir := probeModule(t, declaredAll)
	profile := filepath.Join(dir, "profiles/fake/p.yaml")
	setCaps := func(t *testing.T) {
		t.Helper()
		data, err := os.ReadFile(profile)
		require.NoError(t, err)
		write(t, dir, "profiles/fake/p.yaml", strings.Replace(string(data), "  multi_turn: false\n", "  multi_turn: true\n  calls: true\n  usage: true\n", 1))
	}
	setCaps(t)
	before, err := os.ReadFile(profile)
	require.NoError(t, err)
	var stdout, stderr bytes.Buffer
	code := run([]string{"probe", "fake/p", "-write", "-root", dir}, &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "nothing written: the probe failed")
	after, err := os.ReadFile(profile)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "a failed probe changes nothing")
	assert.NoFileExists(t, filepath.Join(dir, "scenarios/fake/p_rook_test.go"))

	// A successful probe whose execute reports no calls and no usage keeps them declared...
	dir = probeModule(t, `  FAKEHOOK_EXECUTE: 'json:{"output": "hi", "conversation": "c"}'`+"\n")
	profile = filepath.Join(dir, "profiles/fake/p.yaml")
	setCaps(t)
	stdout.Reset()
	code = run([]string{"probe", "fake/p", "-write", "-root", dir}, &stdout, &stderr)
	require.Equal(t, 0, code, stdout.String()+stderr.String())
	assert.Contains(t, stdout.String(), "kept calls: true as declared, though this probe did not see it (-force turns it off)")
	p, err := spec.LoadProfile(profile, filepath.Join(dir, "profiles/fake"))
	require.NoError(t, err)
	assert.Equal(t, spec.Capabilities{MultiTurn: true, Calls: true, Usage: true}, p.Capabilities)

	// ...and -force turns them off.
	code = run([]string{"probe", "fake/p", "-write", "-force", "-root", dir}, &stdout, &stderr)
	require.Equal(t, 0, code)
	p, err = spec.LoadProfile(profile, filepath.Join(dir, "profiles/fake"))
	require.NoError(t, err)
	assert.Equal(t, spec.Capabilities{MultiTurn: true}, p.Capabilities)
}

// A declared secret whose value is a plain word (or short, or a number) is refused before
// any hook runs, naming the variable and never its value: redacting "wrong" would rewrite
// the server's own "missing or wrong bearer token" as if it had echoed the token.
func TestProbeRefusesAWeakSecret(t *testing.T) {
	dir := probeModule(t, `  FAKEHOOK_EXECUTE: "exit:1:POST /chat answered 401: missing or wrong bearer token"`+"\n")
	profile := filepath.Join(dir, "profiles/fake/p.yaml")
	data, err := os.ReadFile(profile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(profile, append(data, "env:\n  - {variable: FAKEBOT_TOKEN, secret: true}\n"...), 0o644))
	t.Setenv("FAKEBOT_TOKEN", "wrong")
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, run([]string{"probe", "fake/p", "-root", dir}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "declared secret FAKEBOT_TOKEN is only 5 character(s): redacting such a value would rewrite the agent's own text")
	assert.NotContains(t, stdout.String()+stderr.String(), "[redacted:FAKEBOT_TOKEN]")
	assert.NotContains(t, stdout.String(), "execute:", "no hook ran")

	t.Setenv("FAKEBOT_TOKEN", "tok-live-7f3a9c21")
	stdout.Reset()
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"probe", "fake/p", "-root", dir}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "missing or wrong bearer token", "a real credential leaves the server's words alone")
}
