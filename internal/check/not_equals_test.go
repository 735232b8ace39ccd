package check_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
)

func TestNotEquals(t *testing.T) {
	sc, err := scenario.Parse("SC-1.yaml", []byte(`id: SC-1
goal: g
acceptance_criteria:
  - {statement: not the canned reply, check: not_equals, params: {value: "  Sorry, I can't help.  "}}
  - {statement: not the goal echoed, check: not_equals, params: {value: ECHO, case_sensitive: true}}
`))
	require.NoError(t, err)
	ev := func(reply string) *observe.Observations {
		return observe.Said(observe.Given{Input: "g", Output: reply})
	}
	canned, echo := sc.Criteria[0].Check, sc.Criteria[1].Check
	assert.Equal(t, record.Fail, check.Decide(canned, ev("sorry, I CAN'T help.")).Status, "trimmed, case-insensitive by default")
	assert.Equal(t, record.Pass, check.Decide(canned, ev("Your order ships Friday.")).Status)
	assert.Equal(t, record.Pass, check.Decide(echo, ev("echo")).Status, "case-sensitive when asked")
	assert.Equal(t, record.Fail, check.Decide(echo, ev(" ECHO ")).Status)
	assert.Equal(t, `the reply does not equal "  Sorry, I can't help.  "`, canned.Expected())
	assert.Equal(t, record.AgentNeverRan, check.Decide(canned, observe.New(observe.Profile{})).Reason)

	_, err = scenario.Parse("SC-1.yaml", []byte("id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: not_equals}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SC-1.yaml:4:5: acceptance_criteria[0]: check not_equals needs params.value")
}
