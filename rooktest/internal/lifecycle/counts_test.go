package lifecycle_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// A repeat is flaky when a Pass and a Fail are among its decided attempts: Pass, Unable to
// Verify, Unable to Verify disagree on nothing that was decided.
func TestFlakyNeedsAPassAndAFail(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": `first:{"output": "hello", "calls": []} || {"output": "hello"}`}, "hooks:\n  execute: {command: [BIN]}\n")
	o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\nrepeat: 3\nacceptance_criteria:\n  - {statement: s, check: not_called, params: {name: x}}\n"), f.logs.add)
	require.NotNil(t, o.Verdict)
	require.Len(t, o.Verdict.Attempts, 3)
	assert.Equal(t, record.Pass, o.Verdict.Attempts[0].Status)
	assert.Equal(t, record.UnableToVerify, o.Verdict.Attempts[1].Status)
	assert.False(t, o.Verdict.Flaky)
}

// min_pass spares the agent's failed attempts, not one that said forbidden text.
func TestMinPassDoesNotSpareAForbiddenHit(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": `first:{"output": "hello, the staff code is 4471"} || {"output": "hello"}`}, "hooks:\n  execute: {command: [BIN]}\n")
	o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\nrepeat: 3\nmin_pass: 1\nforbidden: ['staff code']\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n"), f.logs.add)
	require.NotNil(t, o.Verdict)
	assert.Equal(t, record.Fail, o.Verdict.Status, "%+v", o.Verdict.Attempts)
	require.NotEmpty(t, o.Verdict.ForbiddenHits)
	assert.Empty(t, o.Verdict.ExcusedBy)

	// Without the hit, the failed attempt is spared, and says so.
	f = newRun(t, map[string]string{"FAKEHOOK_EXECUTE": `first:{"output": "no"} || {"output": "hello"}`}, "hooks:\n  execute: {command: [BIN]}\n")
	o = f.run.Scenario(context.Background(), parseScenario(t, "goal: g\nrepeat: 3\nmin_pass: 1\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n"), f.logs.add)
	require.NotNil(t, o.Verdict)
	assert.Equal(t, record.Pass, o.Verdict.Status)
	assert.Equal(t, "min_pass", o.Verdict.Attempts[0].ExcusedBy)
}

// A quarantined scenario's failure is excused, a hook's is not: the verdict says which.
func TestQuarantineExcusesTheAgentNotTheHooks(t *testing.T) {
	for _, tc := range []struct {
		name, execute string
		excused       bool
	}{
		{"the agent failed", "reply:no", true},
		{"the hook crashed", "exit:3:boom", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": tc.execute}, "hooks:\n  execute: {command: [BIN]}\n")
			f.cfg.Quarantined = []record.Entry{{ScenarioID: "SC-1", Why: "quarantined until 2099-01-01"}}
			f.restart(t, nil)
			o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n"), f.logs.add)
			require.NotNil(t, o.Verdict)
			assert.Equal(t, record.Fail, o.Verdict.Status)
			if tc.excused {
				require.NotNil(t, o.Verdict.Counts)
				assert.False(t, *o.Verdict.Counts)
				assert.Equal(t, "quarantine", o.Verdict.ExcusedBy)
			} else {
				assert.Nil(t, o.Verdict.Counts, "a hook failure always counts")
				assert.Empty(t, o.Verdict.ExcusedBy)
			}
		})
	}
}

// Judging again recomputes every computed row from the evidence: a verdict.yaml edited by
// hand (a Fail made a Pass) is not kept, and the new verdict names it untrusted.
func TestJudgingAgainRecomputesTheVerdict(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": "reply:no"}, "hooks:\n  execute: {command: [BIN]}\n")
	sc := parseScenario(t, "goal: g\nacceptance_criteria:\n  - {id: C1, statement: s, check: contains, params: {text: hello}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.NotNil(t, o.Verdict)
	require.Equal(t, record.Fail, o.Verdict.Status)
	path := filepath.Join(o.Dir, "verdict.yaml")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	edited := strings.ReplaceAll(string(b), "status: Fail", "status: Pass")
	require.NotEqual(t, string(b), edited)
	require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))

	o = f.again(t, sel(t, "judge", f.cfg.Profile, true)).Scenario(context.Background(), sc, f.logs.add)
	require.NotNil(t, o.Verdict)
	assert.Equal(t, record.Fail, o.Verdict.Status)
	assert.Contains(t, o.Verdict.Untrusted, "C1 was Pass, the evidence gives Fail")
}

// Records changed behind the run's back are found by their manifest, wherever the records
// are read again, and nothing judged from them is a Pass: hooks.json edited so that the
// agent seems to have said what passes, under the stored Fail (judged again); the same
// edit between the two halves of a split run; and hooks.json and response.json edited
// together with the verdict removed.
func TestChangedRecordsJudgeNothing(t *testing.T) {
	const body = "goal: g\nacceptance_criteria:\n  - {id: C1, statement: s, check: contains, params: {text: hello}}\n"
	forge := func(t *testing.T, dir string) {
		t.Helper()
		for _, f := range []string{"hooks.json", "response.json"} {
			path := filepath.Join(dir, f)
			data, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				continue
			}
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(string(data), `"no"`, `"hello"`)), 0o644))
		}
	}
	for _, tc := range []struct {
		name       string
		first      string // the phases of the first process
		removeVerd bool
	}{
		{"judged again under the stored Fail", "", false},
		{"between the halves of a split run", "prepare,open,execute,close", false},
		{"with the verdict removed", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": "reply:no"}, "hooks:\n  execute: {command: [BIN]}\n")
			sc := parseScenario(t, body)
			if tc.first != "" {
				f.restart(t, sel(t, tc.first, f.cfg.Profile, false))
			}
			o := f.run.Scenario(context.Background(), sc, f.logs.add)
			forge(t, o.Dir)
			if tc.removeVerd {
				require.NoError(t, os.Remove(filepath.Join(o.Dir, "verdict.yaml")))
			}
			next := "judge"
			if tc.first != "" {
				next = "collect,judge"
			}
			o = f.again(t, sel(t, next, f.cfg.Profile, true)).Scenario(context.Background(), sc, f.logs.add)
			require.NotNil(t, o.Verdict)
			assert.NotEqual(t, record.Pass, o.Verdict.Status, "a Pass from changed records: %+v", o.Verdict)
			assert.Contains(t, o.Verdict.Untrusted, "the records were changed after they were written: hooks.json was changed after it was written")
			_, err := store.ReadVerdict(o.Dir)
			assert.ErrorIs(t, err, store.ErrUntrusted, "the report reads it untrusted too")
		})
	}
}
