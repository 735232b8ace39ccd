package report

import (
	"bytes"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/history"
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
	got := map[string]history.Owner{}
	for _, s := range rowsOf(t, &r.Scenarios) {
		got[s.ID] = s.Owner
	}
	assert.Equal(t, map[string]history.Owner{"SC-1": history.OwnerAgent, "SC-2": history.OwnerScenario, "SC-3": history.OwnerHarness,
		"SC-4": history.OwnerScenario, "SC-5": history.OwnerJudge, "SC-6": ""}, got)
	assert.Equal(t, map[history.Owner]int{history.OwnerAgent: 1, history.OwnerScenario: 2, history.OwnerHarness: 1, history.OwnerJudge: 1}, r.Owners)
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
