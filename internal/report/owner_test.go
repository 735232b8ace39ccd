package report

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/owner"
	"github.com/rookgo/rookgo/internal/record"
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

	r, err := Build(dir, "")
	require.NoError(t, err)
	got := map[string]owner.Owner{}
	for _, s := range r.Scenarios {
		got[s.ID] = s.Owner
	}
	assert.Equal(t, map[string]owner.Owner{"SC-1": owner.Agent, "SC-2": owner.Scenario, "SC-3": owner.Harness,
		"SC-4": owner.Scenario, "SC-5": owner.Judge, "SC-6": ""}, got)
	assert.Equal(t, map[owner.Owner]int{owner.Agent: 1, owner.Scenario: 2, owner.Harness: 1, owner.Judge: 1}, r.Owners)
	assert.Equal(t, "agent 1, scenario 2, harness 1, judge 1", r.OwnersLine())

	var md bytes.Buffer
	require.NoError(t, r.Markdown(&md))
	assert.Contains(t, md.String(), "Who must act: agent 1, scenario 2, harness 1, judge 1")
	assert.Contains(t, md.String(), "- SC-1 C1: expected the refund is confirmed; achieved it was not; evidence  (owner: agent)")
	var y bytes.Buffer
	require.NoError(t, r.YAML(&y))
	assert.Contains(t, y.String(), "owners:\n  agent: 1\n  harness: 1\n  judge: 1\n  scenario: 2\n")
	var page bytes.Buffer
	require.NoError(t, r.HTML(&page))
	assert.Contains(t, page.String(), `data-owner="harness"><td><a href="#sc-SC-3">SC-3</a>`)
	assert.Contains(t, page.String(), `<p id="owners">Who must act: agent 1, scenario 2, harness 1, judge 1</p>`)
}
