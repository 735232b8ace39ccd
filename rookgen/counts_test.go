package main

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeProfile writes the fake agent's profile, this test binary as its execute hook doing
// what execute says for each scenario (FAKEHOOK_EXECUTE_<id>), and its quarantine list.
func fakeProfile(t *testing.T, dir string, execute map[string]string, quarantined ...string) {
	t.Helper()
	var env strings.Builder
	for _, id := range slices.Sorted(maps.Keys(execute)) {
		fmt.Fprintf(&env, "  FAKEHOOK_EXECUTE_%s: %q\n", strings.ReplaceAll(id, "-", "_"), execute[id])
	}
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  execute: {command: [%q]}\nhook_env:\n  FAKEHOOK: \"1\"\n%s", os.Args[0], env.String()))
	if len(quarantined) > 0 {
		var q strings.Builder
		q.WriteString("quarantine:\n")
		for _, id := range quarantined {
			fmt.Fprintf(&q, "  - {scenario: %s, reason: known bug (AG-2), expires: 2099-01-01}\n", id)
		}
		write(t, dir, "profiles/fake/quarantine.yaml", q.String())
	}
}

// What counts toward the exit code, end to end through a built suite: quarantine and
// -rook.gate excuse the agent's failures, never a hook's; a scenario's verdict is atomic,
// so selecting one criterion of a failed scenario does not make it pass.
func TestWhatCountsTowardTheExitCode(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	fakeProfile(t, dir, map[string]string{"SC-1": "exit:3:the agent's API is down", "SC-2": "exit:3:the agent's API is down", "SC-4": "reply:no"},
		"SC-1", "SC-4")
	helloScenario(t, dir, "SC-1")
	helloScenario(t, dir, "SC-2")
	write(t, dir, "scenarios/fake/SC-3.yaml", "id: SC-3\ngoal: hello\nacceptance_criteria:\n  - {id: C1, statement: s, check: contains, params: {text: nope}}\n  - {id: C2, statement: s, check: contains, params: {text: hello}}\n")
	helloScenario(t, dir, "SC-4")
	helloScenario(t, dir, "SC-5")
	write(t, dir, "scenarios/fake/SC-6.yaml", "id: SC-6\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: called, params: {name: lookup}}\n")
	// SC-7 grades tokens, which this profile's hooks do not report: unrunnable when selected.
	write(t, dir, "scenarios/fake/SC-7.yaml", "id: SC-7\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: usage, params: {total_max: 10}}\n")
	rookgen(t, dir)
	bin := testBinary(t, dir, "fake")
	for _, tc := range []struct {
		name string
		args []string
		fail bool
		says string
		// baseline runs first, into the same records: the run -rook.gate compares with.
		baseline []string
	}{
		{"a quarantined scenario whose hook crashed", []string{"-test.run", "TestFake/SC-1"}, true, "exited with status 3", nil},
		{"a quarantined scenario the agent failed", []string{"-test.run", "TestFake/SC-4"}, false, "left out of the exit code", nil},
		// SC-5 passes, so that the run decides something; the baseline had the same failure,
		// so the gate sees no regression.
		{"-rook.gate excusing a hook failure", []string{"-test.run", "TestFake/(SC-2|SC-5)", "-rook.gate=on"}, true, "exited with status 3",
			[]string{"-test.run", "TestFake/(SC-2|SC-5)"}},
		{"one criterion of a failed scenario", []string{"-test.run", "TestFake/SC-3/C2"}, true, "did not select: C1_contains_nope Fail (C1)", nil},
		{"the failing criterion skipped", []string{"-test.run", "TestFake/SC-3", "-test.skip", "TestFake/SC-3/C1"}, true, "did not select: C1_contains_nope Fail (C1)", nil},
		{"the whole scenario", []string{"-test.run", "TestFake/SC-3"}, true, "Fail: expected the reply contains \"nope\"", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			records := "-rook.dir=" + t.TempDir()
			if tc.baseline != nil {
				_, _ = runBinary(t, bin, dir, "fake", nil, append(tc.baseline, records)...) // fails, as it should
			}
			res, err := runBinary(t, bin, dir, "fake", nil, append(tc.args, records)...)
			if tc.fail {
				require.Error(t, err, res.all)
			} else {
				require.NoError(t, err, res.all)
			}
			assert.Contains(t, res.all, tc.says)
		})
	}

	// A shard follows the rule the whole run would: SC-5 passes and SC-6 is Unable to
	// Verify, so the run decides something; the shard that holds SC-6 alone fails nothing.
	t.Run("shards of a run that decides something", func(t *testing.T) {
		res, err := runBinary(t, bin, dir, "fake", nil, "-rook.only=SC-5,SC-6", "-rook.dir="+t.TempDir())
		require.NoError(t, err, res.all)
		alone := false
		for k := 1; k <= 8; k++ {
			res, err := runBinary(t, bin, dir, "fake", nil, "-rook.only=SC-5,SC-6", fmt.Sprintf("-rook.shard=%d/8", k), "-rook.dir="+t.TempDir())
			require.NoError(t, err, res.all)
			alone = alone || strings.Contains(res.all, "decided nothing on its own")
		}
		require.True(t, alone, "SC-5 and SC-6 share a shard of 8: pick ids that do not")
	})

	// A scenario the selection left out is not counted unrunnable: the run counts what it
	// was asked to run.
	t.Run("an unselected unrunnable scenario", func(t *testing.T) {
		records := t.TempDir()
		res, err := runBinary(t, bin, dir, "fake", nil, "-rook.only=SC-5", "-rook.dir="+records)
		require.NoError(t, err, res.all)
		assert.Contains(t, res.all, "0 unrunnable")
		res, _ = runBinary(t, bin, dir, "fake", nil, "-rook.only=SC-5,SC-7", "-rook.dir="+records)
		assert.Contains(t, res.all, "1 unrunnable")
	})
}
