package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rookgo/rookgo/internal/fakehook"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUndecidedRunFails: a run that decided no criterion (here every criterion is
// llm_judge and no judge is configured) fails its profile's test with one line saying why,
// unless -rook.allow-undecided is given.
func TestUndecidedRunFails(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\"}\n", os.Args[0]))
	write(t, dir, "scenarios/fake/SC-1.yaml", "id: SC-1\ngoal: hi\nacceptance_criteria:\n  - {statement: The agent is kind., check: llm_judge}\n")
	rookgen(t, dir)
	env := []string{goflags}

	res, err := goTest(t, dir, env, "./scenarios/fake")
	require.Error(t, err, "a run that decided nothing does not print ok")
	assert.Equal(t, "fail", res.action["TestFake"])
	assert.Contains(t, res.output["TestFake"], "decided nothing: no criterion passed or failed (Unable to Verify (undecidable): 1 scenario(s))")
	assert.Equal(t, "skip", res.action["TestFake/SC-1"], "the scenario itself stays Unable to Verify")

	res, err = goTest(t, dir, env, "./scenarios/fake", "-rook.allow-undecided")
	require.NoError(t, err, res.all)
}

// TestNearMissesAndCapabilities: a hook that prints OpenAI's spellings is judged on its
// usage, gets a note naming "calls" for its tool_calls, and a profile declaring calls no
// hook reports is warned about (a failure under -rook.strict).
func TestNearMissesAndCapabilities(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	out := `json:{"output": "done", "tool_calls": [{"name": "refund"}], "usage": {"prompt_tokens": 50, "completion_tokens": 7}}`
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\", FAKEHOOK_EXECUTE: %q}\ncapabilities: {calls: true, usage: true}\n", os.Args[0], out))
	write(t, dir, "scenarios/fake/SC-1.yaml", "id: SC-1\ngoal: hi\nacceptance_criteria:\n  - {statement: s, check: usage, params: {total_max: 100}}\n  - {statement: s, check: not_called, params: {name: refund}}\n")
	rookgen(t, dir)
	env := []string{goflags}
	res, err := goTest(t, dir, env, "./scenarios/fake")
	require.NoError(t, err, res.all)
	assert.Equal(t, "pass", res.action["TestFake/SC-1/C1_usage"], "prompt_tokens and completion_tokens are usage")
	assert.Contains(t, res.output["TestFake/SC-1"], `execute turn 1: note: "tool_calls" is not read: the hook contract's key is "calls"`)
	assert.Equal(t, "skip", res.action["TestFake/SC-1/C2_not_called_refund"])
	assert.Contains(t, res.output["TestFake"], "warning: profile fake declares capabilities.calls: true, but no hook reported calls in this run")

	res, err = goTest(t, dir, env, "./scenarios/fake", "-rook.strict")
	require.Error(t, err)
	assert.Contains(t, res.output["TestFake"], "[failing under -rook.strict]")
}

// TestRunFlagsAcrossProfiles: a run id belongs to one profile, and the package's other
// profile tests skip saying so; latest picks the newest run; a resume that carries every
// verdict runs no prepare; -rook.failed runs only what did not pass.
func TestRunFlagsAcrossProfiles(t *testing.T) {
	t.Parallel() // waits on builds and hooks more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	hookLog := filepath.Join(t.TempDir(), "calls.jsonl")
	for _, p := range []string{"a", "b"} {
		write(t, dir, "profiles/fake/"+p+".yaml", fmt.Sprintf("id: %s\nhooks:\n  prepare: {command: [%q]}\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\", FAKEHOOK_LOG: %q}\n",
			p, os.Args[0], os.Args[0], hookLog))
	}
	helloScenario(t, dir, "SC-OK")
	write(t, dir, "scenarios/fake/SC-BAD.yaml", "id: SC-BAD\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: goodbye}}\n")
	rookgen(t, dir)
	env := []string{goflags}
	prepares := func() int {
		calls, err := fakehook.ReadLog(hookLog)
		require.NoError(t, err)
		n := 0
		for _, c := range calls {
			if c.Phase == "prepare" {
				n++
			}
		}
		return n
	}

	res, _ := goTest(t, dir, env, "./scenarios/fake", "-run", "TestA")
	id := runIDFrom(t, res.output["TestA"])

	res, _ = goTest(t, dir, env, "./scenarios/fake", "-rook.run="+id)
	assert.Equal(t, "skip", res.action["TestB"])
	assert.Contains(t, res.output["TestB"], "-rook.run="+id+" is a run of profile a, not of b")

	res, _ = goTest(t, dir, env, "./scenarios/fake", "-run", "TestA", "-rook.run=latest", "-rook.phases=judge")
	assert.Contains(t, res.output["TestA"], "rook run "+id+" (continuing in place")
	assert.Contains(t, res.output["TestA"], "rooktest: -rook.run=latest is run "+id+", the newest of profile a; each profile's test continues its own newest run")

	before := prepares()
	res, _ = goTest(t, dir, env, "./scenarios/fake", "-run", "TestA", "-rook.resume=latest", "-rook.only=SC-OK")
	assert.Equal(t, "pass", res.action["TestA/SC-OK"])
	assert.Contains(t, res.output["TestA/SC-OK"], "carried forward from run")
	assert.Equal(t, before, prepares(), "every verdict was carried: prepare did not run")

	res, _ = goTest(t, dir, env, "./scenarios/fake", "-run", "TestA", "-rook.failed="+id)
	assert.Equal(t, "skip", res.action["TestA/SC-OK"])
	assert.Contains(t, res.output["TestA/SC-OK"], "it passed in run "+id+" (-rook.failed)")
	assert.Equal(t, "fail", res.action["TestA/SC-BAD"], "what failed runs again")

	res, err := goTest(t, dir, env, "./scenarios/fake", "-run", "TestA", "-rook.run=no-such-run")
	require.Error(t, err)
	assert.Contains(t, res.output["TestA"], "-rook.run=no-such-run: there is no such run under")
}

// TestTimeoutNear: when go test's -timeout leaves too little time, no scenario starts (nor
// prepare); each says so, report.yaml counts them not run, the test fails, and continuing
// the run without the short timeout runs them. A scenario in flight at the cutoff finishes.
func TestTimeoutNear(t *testing.T) {
	t.Parallel() // waits on builds and hooks more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	hookLog := filepath.Join(t.TempDir(), "calls.jsonl")
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  prepare: {command: [%q]}\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\", FAKEHOOK_LOG: %q}\n",
		os.Args[0], os.Args[0], hookLog))
	for _, id := range []string{"SC-1", "SC-2"} {
		helloScenario(t, dir, id)
	}
	rookgen(t, dir)
	env := []string{goflags}
	records := filepath.Join(t.TempDir(), "runs")

	// Less than the least start margin: nothing may start.
	res, err := goTest(t, dir, env, "./scenarios/fake", "-timeout=3s", "-rook.dir="+records)
	require.Error(t, err)
	id := runIDFrom(t, res.output["TestFake"])
	assert.Equal(t, "fail", res.action["TestFake"])
	for _, sc := range []string{"TestFake/SC-1", "TestFake/SC-2"} {
		assert.Equal(t, "skip", res.action[sc], sc)
		assert.Contains(t, res.output[sc], "go test's -timeout is near", sc)
		assert.Contains(t, res.output[sc], "continue with -rook.run="+id, sc)
	}
	_, statErr := os.Stat(hookLog)
	assert.ErrorIs(t, statErr, os.ErrNotExist, "no hook ran, not even prepare")
	rep := readYAMLFile(t, filepath.Join(records, "fake", id, "report.yaml"))
	totals := rep["totals"].(map[string]any)
	assert.EqualValues(t, 2, totals["planned"])
	assert.EqualValues(t, 2, totals["not_run"])

	res, err = goTest(t, dir, env, "./scenarios/fake", "-rook.dir="+records, "-rook.run="+id)
	require.NoError(t, err, res.all)
	assert.Equal(t, "pass", res.action["TestFake/SC-1"])
	assert.Equal(t, "pass", res.action["TestFake/SC-2"])

	// With 8 s, scenarios start for 3 s: SC-1 starts and, in flight, finishes its 4 s
	// execute (hooks are stopped only after 7.2 s); SC-2, next in line, does not start.
	slow := append(env, "FAKEHOOK_EXECUTE_SC_1=sleep:4s")
	res, err = goTest(t, dir, slow, "./scenarios/fake", "-timeout=8s", "-rook.dir="+records, "-rook.concurrency=1")
	require.Error(t, err)
	assert.Equal(t, "pass", res.action["TestFake/SC-1"], res.output["TestFake/SC-1"])
	assert.Equal(t, "skip", res.action["TestFake/SC-2"])
	assert.Contains(t, res.output["TestFake/SC-2"], "go test's -timeout is near")
	assert.Equal(t, "fail", res.action["TestFake"], "a run cut short by the deadline does not print ok")
	assert.Contains(t, res.output["TestFake"], "1 scenario(s) were not started because go test's -timeout was near")
}
