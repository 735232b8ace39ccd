package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A min_pass scenario passing 2 of 3 passes, and a quarantined scenario that fails keeps
// the exit code 0: JUnit lists it as skipped, saying it is quarantined and why, and the
// records and the report say so too. An expired entry stops the run, naming its line.
func TestMinPassAndQuarantine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  execute: {command: [%[1]q]}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_EXECUTE_SC_KOFN_A2: "reply:goodbye"
  FAKEHOOK_EXECUTE_SC_ALLOFN_A2: "reply:goodbye"
  FAKEHOOK_EXECUTE_SC_HELD: "reply:goodbye"
`, os.Args[0]))
	criteria := "acceptance_criteria:\n  - {statement: Greets back., check: contains, params: {text: hello}}\n"
	write(t, dir, "scenarios/fake/SC-KOFN.yaml", "id: SC-KOFN\ngoal: hello\nrepeat: 3\nmin_pass: 2\n"+criteria)
	write(t, dir, "scenarios/fake/SC-ALLOFN.yaml", "id: SC-ALLOFN\ngoal: hello\nrepeat: 3\nmin_pass: 3\n"+criteria)
	write(t, dir, "scenarios/fake/SC-HELD.yaml", "id: SC-HELD\ngoal: hello\n"+criteria)
	write(t, dir, "scenarios/fake/SC-OK.yaml", "id: SC-OK\ngoal: hello\n"+criteria)
	until := time.Now().AddDate(0, 0, 30).Format(time.DateOnly)
	write(t, dir, "profiles/fake/quarantine.yaml", "quarantine:\n  - scenario: SC-HELD\n    reason: the sandbox is down (AG-7)\n    expires: "+until+"\n")
	rookgen(t, dir)

	records := t.TempDir()
	// Only the scenario that needs all three passes fails the run; without it, it is green.
	res, junit, err := gotestsum(t, dir, []string{goflags}, "-count=1", "./scenarios/fake", "-rook.dir="+records, "-rook.only=SC-KOFN,SC-HELD,SC-OK")
	require.NoError(t, err, "min_pass spared one attempt, and SC-HELD is quarantined: %s", res.all)
	assert.Contains(t, res.all, "min_pass 2 of 3: 2 of 3 attempts passed")
	assert.Equal(t, "pass", res.action["TestFake/SC-KOFN"])
	assert.Equal(t, "skip", res.action["TestFake/SC-KOFN/attempt_2"], "the attempt min_pass spared is said, not counted")
	assert.Equal(t, "skip", res.action["TestFake/SC-HELD"])
	assert.Contains(t, res.all, "SC-HELD: did not pass, and is quarantined until "+until+": the sandbox is down (AG-7): run and reported, left out of the exit code")
	assert.Contains(t, string(junit), "quarantined until "+until)

	runs, _ := filepath.Glob(filepath.Join(records, "fake", "*", "run.yaml"))
	require.Len(t, runs, 1)
	runYAML, err := os.ReadFile(runs[0])
	require.NoError(t, err)
	assert.Contains(t, string(runYAML), "quarantined:\n  - scenario_id: SC-HELD\n    why: 'quarantined until "+until+": the sandbox is down (AG-7)'")
	verdict, err := os.ReadFile(filepath.Join(filepath.Dir(runs[0]), "scenarios", "SC-KOFN", "verdict.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(verdict), "status: Pass")
	assert.Contains(t, string(verdict), "min_pass: 2")

	var out, errOut strings.Builder
	require.Equal(t, 0, run([]string{"report", "-dir", records}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "- SC-HELD: quarantined until "+until+": the sandbox is down (AG-7)")
	assert.Contains(t, out.String(), "- SC-KOFN: 2 of 3 passed (min_pass 2)")

	bin := testBinary(t, dir, "fake") // linked once for the two runs below
	res, err = runBinary(t, bin, dir, "fake", nil, "-rook.dir="+t.TempDir(), "-rook.only=SC-ALLOFN")
	require.Error(t, err, "min_pass 3 of 3 fails on one failed attempt")
	assert.Equal(t, "fail", res.action["TestFake/SC-ALLOFN"])

	write(t, dir, "profiles/fake/quarantine.yaml", "quarantine:\n  - scenario: SC-HELD\n    reason: the sandbox is down (AG-7)\n    expires: 2026-01-02\n")
	res, err = runBinary(t, bin, dir, "fake", nil, "-rook.dir="+t.TempDir())
	require.Error(t, err)
	assert.Contains(t, res.all, "profiles/fake/quarantine.yaml:4:14: the quarantine of SC-HELD expired after 2026-01-02 (the sandbox is down (AG-7))")
}

// A run with a price table shows each scenario's cost and the total in report.yaml, the
// markdown and the page; -rook.budget leaves the scenarios after the spend passed it not
// run, failing the run, and the continuation runs them.
func TestCostAndBudget(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	linkPage(t, dir, "fake")
	// Every turn of the fake agent reports 10 tokens in and 5 out: 0.02 at these prices.
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  execute: {command: [%[1]q]}
hook_env:
  FAKEHOOK: "1"
pricing:
  agent_model: tiny
  models:
    tiny: {input_per_million: 1000, output_per_million: 2000}
`, os.Args[0]))
	for _, id := range []string{"SC-1", "SC-2", "SC-3"} {
		write(t, dir, "scenarios/fake/"+id+".yaml", "id: "+id+"\ngoal: hello\nfeature_id: F-"+id[3:]+"\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n")
	}
	rookgen(t, dir)
	bin := testBinary(t, dir, "fake")
	records := t.TempDir()
	res, err := runBinary(t, bin, dir, "fake", nil, "-rook.dir="+records, "-rook.budget=$0.01", "-rook.concurrency=1")
	require.Error(t, err, "a run cut short by its budget is not whole")
	assert.Contains(t, res.all, "2 scenario(s) were not started because the run's budget of USD 0.0100 was spent (USD 0.0200)")
	assert.Contains(t, res.all, "not run: the run's budget of USD 0.0100 is spent (USD 0.0200 by the scenarios that ran)")

	runs, _ := filepath.Glob(filepath.Join(records, "fake", "*"))
	require.Len(t, runs, 1)
	id := filepath.Base(runs[0])
	res, err = runBinary(t, bin, dir, "fake", nil, "-rook.dir="+records, "-rook.run="+id)
	require.NoError(t, err, "the continuation runs the rest: %s", res.all)

	var out, errOut strings.Builder
	require.Equal(t, 0, run([]string{"report", "-dir", records, "-format", "yaml"}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "cost:\n  currency: USD\n  total:\n    agent: 0.06\n    judge: 0\n    total: 0.06\n")
	assert.Contains(t, out.String(), "feature: F-2\n    cost:\n      agent: 0.02\n")
	out.Reset()
	require.Equal(t, 0, run([]string{"report", "-dir", records}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "Cost: USD 0.0600 (agent 0.0600, judge 0.0000)")
	assert.Contains(t, out.String(), "| F-1 | 1 | 0.0200 |")
	assert.Contains(t, out.String(), "Costliest scenarios: SC-1 0.0200, SC-2 0.0200, SC-3 0.0200")
	page, err := os.ReadFile(filepath.Join(runs[0], "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<td class="cost">USD 0.0200</td>`)
	assert.Contains(t, string(page), `<div class="tile" id="tile-cost"><b>0.0600</b>USD spent</div>`)
}

// -rook.gate leaves the exit code to the paired test against the previous run (or the one
// it names): one scenario that turned to Fail is noise (exit 0, the failure reported and
// skipped), six are a significant regression (exit 1, the test and its numbers said).
func TestGateFlag(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\"}\n", os.Args[0]))
	var ids []string
	for i := 1; i <= 6; i++ {
		id := fmt.Sprintf("SC-%d", i)
		ids = append(ids, "FAKEHOOK_EXECUTE_SC_"+id[3:]+"=reply:goodbye")
		helloScenario(t, dir, id)
	}
	rookgen(t, dir)
	bin := testBinary(t, dir, "fake")
	records := t.TempDir()
	n := 0
	test := func(env ...string) (results, error) {
		n++ // runs named r1, r2...: each newer than the last
		return runBinary(t, bin, dir, "fake", env, "-rook.dir="+records, "-rook.gate=on", fmt.Sprintf("-rook.run-id=r%d", n))
	}
	res, err := test()
	require.NoError(t, err, res.all)
	assert.Contains(t, res.all, "-rook.gate: profile fake has no earlier complete run to compare with, so every failure counts as it would without the gate")

	res, err = test(ids[0])
	require.NoError(t, err, "one flip is noise: %s", res.all)
	assert.Equal(t, "skip", res.action["TestFake/SC-1"])
	assert.Contains(t, res.all, "SC-1: did not pass; -rook.gate decides the exit code, by a significant regression against run r1")
	assert.Contains(t, res.all, "paired over 6 scenario(s) decided in both runs: 1 pass→fail, 0 fail→pass; McNemar's exact test p = 1; the gate (more than 0 regression(s), more than fixes, p < 0.05) passes")

	// Against r1, where all six passed, six flips one way are not noise.
	res, err = runBinary(t, bin, dir, "fake", ids, "-rook.dir="+records, "-rook.gate=base=r1", "-rook.run-id=r3")
	require.Error(t, err)
	assert.Contains(t, res.all, "rook gate: run r3 against r1, named as the baseline: paired over 6 scenario(s) decided in both runs: 6 pass→fail, 0 fail→pass; McNemar's exact test p = 0.03125; the gate (more than 0 regression(s), more than fixes, p < 0.05) fails: a significant regression")
}

// span is one hook call FAKEHOOK_SPANS logged.
type span struct {
	Phase, Scenario string
	Start, End      time.Time
}

// -rook.rate starts at most R turns in any window, with 8 scenarios in flight; an agent
// that asks to wait (retry_after_ms) holds every scenario's next turn, and its own turn
// runs again and replies.
func TestRateAndRetryAfter(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	spans := filepath.Join(t.TempDir(), "spans.jsonl")
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  execute: {command: [%q]}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_SPANS: %q
  FAKEHOOK_EXECUTE_SC_10: "wait-once:1200"
concurrency: 8
rate: 10/s
`, os.Args[0], spans))
	for i := 1; i <= 30; i++ {
		helloScenario(t, dir, fmt.Sprintf("SC-%02d", i))
	}
	rookgen(t, dir)
	records := t.TempDir()
	res, err := goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/fake", "-rook.dir="+records, "-rook.run-id=rated")
	require.NoError(t, err, res.all)
	assert.Contains(t, res.all, "execute turns start at most 10/s (in any window of that length)")
	assert.Contains(t, res.all, "the agent's API asked to wait 1.2s (retry_after_ms); no turn of any scenario starts before then")

	data, err := os.ReadFile(spans)
	require.NoError(t, err)
	var starts []time.Time
	var waited span
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var s span
		require.NoError(t, json.Unmarshal([]byte(line), &s))
		if s.Phase != "execute" {
			continue
		}
		starts = append(starts, s.Start)
		if s.Scenario == "SC-10" && waited.Start.IsZero() {
			waited = s
		}
	}
	require.Len(t, starts, 31, "30 turns, and SC-10's again")
	// 10 in any second, by when the runtime started each turn's hook process (hooks.json's
	// "at": what the limiter counts; the hook's own clock reads later, by however long the
	// machine took to start it).
	var began []time.Time
	hookFiles, _ := filepath.Glob(filepath.Join(records, "fake", "rated", "scenarios", "*", "hooks.json"))
	require.Len(t, hookFiles, 30)
	for _, f := range hookFiles {
		var h struct {
			Phases struct {
				Execute struct {
					Turns []struct {
						At time.Time `json:"at"`
					} `json:"turns"`
				} `json:"execute"`
			} `json:"phases"`
		}
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &h))
		for _, turn := range h.Phases.Execute.Turns {
			began = append(began, turn.At)
		}
	}
	require.Len(t, began, 30)
	slices.SortFunc(began, func(a, b time.Time) int { return a.Compare(b) })
	for i, s := range began {
		n := 0
		for _, o := range began[i:] {
			if o.Sub(s) < time.Second {
				n++
			}
		}
		assert.LessOrEqual(t, n, 10, "turns started within 1 s of %s", s.Format(time.StampMilli))
	}
	// A turn let through just before the runtime heard of the wait can start its hook a few
	// tens of ms after it did; none starts later than that until the wait is over. Both
	// clocks are the runtime's, from hooks.json: when it saw the 429's hook end (the try
	// kept under "tries") and when it started each turn's hook. (The hooks' own clocks read
	// later by however long a loaded machine takes to exec them and to reap them.)
	hooks, err := os.ReadFile(filepath.Join(records, "fake", "rated", "scenarios", "SC-10", "hooks.json"))
	require.NoError(t, err)
	var sc10 struct {
		Phases struct {
			Execute struct {
				Turns []struct {
					Tries []struct {
						EndedAt time.Time `json:"ended_at"`
					} `json:"tries"`
				} `json:"turns"`
			} `json:"execute"`
		} `json:"phases"`
	}
	require.NoError(t, json.Unmarshal(hooks, &sc10))
	require.Len(t, sc10.Phases.Execute.Turns, 1)
	require.Len(t, sc10.Phases.Execute.Turns[0].Tries, 1, "the try that asked to wait is kept")
	heard := sc10.Phases.Execute.Turns[0].Tries[0].EndedAt
	require.False(t, heard.IsZero())
	require.False(t, heard.Before(waited.Start), "the runtime's end of the 429's hook, %s, is after its start, %s", heard, waited.Start)
	for _, s := range began {
		assert.False(t, s.After(heard.Add(150*time.Millisecond)) && s.Before(heard.Add(1100*time.Millisecond)),
			"a turn started %s after the runtime heard SC-10 ask to wait 1.2 s", s.Sub(heard))
	}
	assert.Contains(t, string(hooks), "run 1 more time(s): the agent's API asked to wait (retry_after_ms) and gave no reply")
}
