package lifecycle_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
)

// A criterion that requires collected evidence is Unable to Verify on what the agent said
// and reported of itself, and decided once collect read the system's state; every row
// says which tier decided it.
func TestEvidenceTiers(t *testing.T) {
	const body = `goal: refund order 7
verification_requires: [{type: mcp, server: billing, op: issue_refund}]
acceptance_criteria:
  - {id: REFUNDED, statement: s, check: called, params: {name: issue_refund}}
  - {id: SAYS, statement: s, check: contains, params: {text: refund}}
  - {id: SAYS-COLLECTED, statement: s, check: contains, params: {text: refund, evidence: collected}}
  - {id: STATE, statement: s, check: json_path, params: {in: collect, path: '$.refunds[0].status', equals: done}}
  - {id: USAGE, statement: s, check: usage, params: {total_max: 100, evidence: reported}}
`
	rows := func(t *testing.T, hooks string, env map[string]string) map[string]record.Row {
		f := newRun(t, env, hooks)
		o := f.run.Scenario(context.Background(), parseScenario(t, body), f.logs.add)
		require.NotNil(t, o.Verdict)
		out := map[string]record.Row{}
		for _, r := range o.Verdict.Criteria {
			out[r.CriterionID] = r
		}
		return out
	}
	reply := `json:{"output": "your refund is done", "calls": [{"name": "issue_refund"}], "usage": {"input": 10, "output": 5}}`

	said := rows(t, "hooks:\n  execute: {command: [BIN]}\n", map[string]string{"FAKEHOOK_EXECUTE": reply})
	assert.Equal(t, record.UnableToVerify, said["REFUNDED"].Status, "the agent's own call log is not the billing system's")
	assert.Equal(t, record.NotObservable, said["REFUNDED"].Reason)
	assert.Equal(t, "reported", said["REFUNDED"].Tier)
	assert.Contains(t, said["REFUNDED"].Achieved, "it was decided Pass on reported evidence, and the criterion requires collected evidence (a collect hook that reads the state of the system the agent acted on")
	assert.Equal(t, record.Pass, said["SAYS"].Status)
	assert.Equal(t, "said", said["SAYS"].Tier)
	assert.Equal(t, record.UnableToVerify, said["SAYS-COLLECTED"].Status, "a reply is never collected evidence")
	assert.Equal(t, record.UnableToVerify, said["STATE"].Status, "no collect, no state")
	assert.Equal(t, record.Pass, said["USAGE"].Status)
	assert.Equal(t, "reported", said["USAGE"].Tier)

	collected := rows(t, "hooks:\n  execute: {command: [BIN]}\n  collect: {command: [BIN]}\n", map[string]string{"FAKEHOOK_EXECUTE": reply,
		"FAKEHOOK_COLLECT": `json:{"calls": [{"name": "issue_refund", "output": {"refund": "R-1"}}], "refunds": [{"status": "done"}]}`})
	assert.Equal(t, record.Pass, collected["REFUNDED"].Status, "collect read the refund from the billing system")
	assert.Equal(t, "collected", collected["REFUNDED"].Tier)
	assert.Equal(t, record.Pass, collected["STATE"].Status)
	assert.Equal(t, "collected", collected["STATE"].Tier)
	assert.Equal(t, record.UnableToVerify, collected["SAYS-COLLECTED"].Status, "what the agent said stays said")
}
