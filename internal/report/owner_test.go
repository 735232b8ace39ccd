package report

import (
	"bytes"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// Every scenario that did not pass names who must act, from its verdict and the agent's
// other runs: a scenario that passed before and fails now is the agent's.
func TestOwnersAreNamedInEveryFormat(t *testing.T) {
	root := t.TempDir()
	failed := record.Verdict{Status: record.Fail, Criteria: []record.Row{{CriterionID: "C1", Check: "text", Status: record.Fail, Confidence: "High",
		Expected: "the refund is confirmed", Achieved: "it was not"}}}
	writeRun(t, filepath.Join(root, "R1"), "R1", map[string]record.Verdict{
		"SC-1": {Status: record.Pass, Criteria: []record.Row{}}, "SC-2": failed})
	dir := writeRun(t, filepath.Join(root, "R2"), "R2", map[string]record.Verdict{
		"SC-1": failed,
		"SC-2": failed,
		"SC-3": {Status: record.Fail, Failure: "execute: exit status 3", Criteria: []record.Row{}},
		"SC-4": {Status: record.UnableToVerify, UnverifiableReason: record.NotObservable, Criteria: []record.Row{}},
		"SC-5": {Status: record.UnableToVerify, UnverifiableReason: record.Undecidable,
			Criteria: []record.Row{{CriterionID: "C1", Check: "llm_judge", Status: record.UnableToVerify, Judge: "judge-1"}}},
		"SC-6": {Status: record.Pass, Criteria: []record.Row{}},
	})

	r := build(t, dir, "")
	got := map[string]Owner{}
	for _, s := range rowsOf(t, &r.Scenarios) {
		got[s.ID] = s.Owner
	}
	assert.Equal(t, map[string]Owner{"SC-1": OwnerAgent, "SC-2": OwnerScenario, "SC-3": OwnerHarness,
		"SC-4": OwnerScenario, "SC-5": OwnerJudge, "SC-6": ""}, got)
	assert.Equal(t, map[Owner]int{OwnerAgent: 1, OwnerScenario: 2, OwnerHarness: 1, OwnerJudge: 1}, r.Owners)
	assert.Equal(t, "agent 1, scenario 2, harness 1, judge 1", r.OwnersLine())

	var md bytes.Buffer
	require.NoError(t, r.Markdown(&md))
	assert.Contains(t, md.String(), "Who must act: agent 1, scenario 2, harness 1, judge 1")
	assert.Contains(t, md.String(), "- SC-1 C1: expected the refund is confirmed; achieved it was not; evidence  (owner: agent)")
	var y bytes.Buffer
	require.NoError(t, r.YAML(&y))
	assert.Contains(t, y.String(), "owners:\n  agent: 1\n  harness: 1\n  judge: 1\n  scenario: 2\n")
}

// repeated is a verdict of n attempts, the first passed of them passing, whose attempts'
// records exist (writeRepeats writes them).
func repeated(passed, n int) record.Verdict {
	v := record.Verdict{Status: record.Pass, Criteria: []record.Row{}}
	for i := 1; i <= n; i++ {
		st := record.Pass
		if i > passed {
			st, v.Status = record.Fail, record.Fail
		}
		v.Attempts = append(v.Attempts, record.AttemptStatus{Attempt: i, Status: st})
	}
	v.AttemptsPassed = &passed
	return v
}

// With repeats, a comparison measures the change in pass rate with a paired bootstrap
// interval: 3 of 3 to 1 of 3 on every scenario is a drop no resample doubts.
func TestPassRateChangeWithRepeats(t *testing.T) {
	root := t.TempDir()
	ids := []string{"SC-1", "SC-2", "SC-3", "SC-4"}
	write := func(id string, passed int) string {
		dir := filepath.Join(root, id)
		vs := map[string]record.Verdict{}
		for _, sc := range ids {
			for n := 1; n <= 3; n++ {
				require.NoError(t, store.WriteFile(filepath.Join(dir, "scenarios", sc, "attempts", strconv.Itoa(n), "hooks.json"), []byte(`{"version": 1}`)))
			}
			vs[sc] = repeated(passed, 3)
		}
		return writeRun(t, dir, id, vs)
	}
	base, dir := write("R1", 3), write("R2", 1)
	r := build(t, dir, base)
	c := r.Changes.PassRate
	require.NotNil(t, c)
	assert.Equal(t, 4, c.Scenarios)
	assert.InDelta(t, -2.0/3, c.Delta, 1e-12)
	var md bytes.Buffer
	require.NoError(t, r.Markdown(&md))
	assert.Contains(t, md.String(), "- pass rate over 4 scenario(s) decided in both runs: 100% → 33% (-67 points; paired bootstrap 95% interval -67 to -67)")
}

func TestOwnerOf(t *testing.T) {
	yes := true
	failed := func(conf string) record.Row {
		return record.Row{CriterionID: "C1", Check: "text", Status: record.Fail, Confidence: conf}
	}
	cases := []struct {
		name       string
		v          *record.Verdict
		everPassed bool
		want       Owner
	}{
		{"pass", &record.Verdict{Status: record.Pass}, true, ""},
		{"compromised, never passed", &record.Verdict{Status: record.Fail, Attack: record.Attack{Compromised: &yes, AttackConfidence: "High"}}, false, OwnerAgent},
		{"compromised on a Low judge reading", &record.Verdict{Status: record.Fail, Attack: record.Attack{Compromised: &yes, AttackConfidence: "Low"}}, true, OwnerJudge},
		{"never judged", &record.Verdict{}, false, ""},
		{"nil", nil, false, ""},
		{"failed on observed evidence", &record.Verdict{Status: record.Fail, Criteria: []record.Row{failed("High")}}, true, OwnerAgent},
		{"forbidden text", &record.Verdict{Status: record.Fail, ForbiddenHits: []record.ForbiddenHit{{Text: "x"}}}, true, OwnerAgent},
		{"never passed anywhere", &record.Verdict{Status: record.Fail, Criteria: []record.Row{failed("High")}}, false, OwnerScenario},
		{"a hook failed", &record.Verdict{Status: record.Fail, Failure: "execute: exit 2", Criteria: []record.Row{failed("High")}}, true, OwnerHarness},
		{"an attempt's hook failed", &record.Verdict{Status: record.Fail, Attempts: []record.AttemptStatus{
			{Attempt: 1, Status: record.Pass}, {Attempt: 2, Status: record.Fail, Failure: "open: timed out"}}}, true, OwnerHarness},
		{"an attempt failed on evidence", &record.Verdict{Status: record.Fail, Criteria: []record.Row{failed("High")}, Attempts: []record.AttemptStatus{
			{Attempt: 1, Status: record.Fail}, {Attempt: 2, Status: record.Fail, Failure: "open: timed out"}}}, true, OwnerAgent},
		{"agent never ran", &record.Verdict{Status: record.UnableToVerify, UnverifiableReason: record.AgentNeverRan}, true, OwnerHarness},
		{"not observable", &record.Verdict{Status: record.UnableToVerify, UnverifiableReason: record.NotObservable}, true, OwnerScenario},
		{"judge left it undecided", &record.Verdict{Status: record.UnableToVerify, UnverifiableReason: record.Undecidable,
			Criteria: []record.Row{{Status: record.UnableToVerify, Check: "llm_judge", Judge: "m"}}}, true, OwnerJudge},
		{"no judge configured", &record.Verdict{Status: record.UnableToVerify, UnverifiableReason: record.Undecidable,
			Criteria: []record.Row{{Status: record.UnableToVerify, Check: "llm_judge"}}}, true, OwnerJudge},
		{"undecidable check", &record.Verdict{Status: record.UnableToVerify, UnverifiableReason: record.Undecidable,
			Criteria: []record.Row{{Status: record.UnableToVerify, Check: "json_path"}}}, true, OwnerScenario},
		{"failed on Low confidence", &record.Verdict{Status: record.Fail, Criteria: []record.Row{failed("Low"), {Status: record.Pass, Confidence: "High"}}}, true, OwnerJudge},
		{"Low and High failures", &record.Verdict{Status: record.Fail, Criteria: []record.Row{failed("Low"), failed("High")}}, true, OwnerAgent},
		{"Low, with forbidden text", &record.Verdict{Status: record.Fail, Criteria: []record.Row{failed("Low")},
			ForbiddenHits: []record.ForbiddenHit{{Text: "x"}}}, true, OwnerAgent},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, OwnerOf(c.v, c.everPassed))
		})
	}
}

func TestValidOwner(t *testing.T) {
	for _, o := range Owners {
		assert.True(t, ValidOwner(string(o)), o)
	}
	assert.False(t, ValidOwner("nobody"))
	assert.False(t, ValidOwner(""))
}
