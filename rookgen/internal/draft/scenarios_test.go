package draft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The schema's every complaint is named at the line and column of the value it is about.
func TestASchemaErrorIsNamedAtItsLine(t *testing.T) {
	s, err := scenarioSchema()
	require.NoError(t, err)
	err = validate(s, "SC-1.yaml", []byte("id: SC-1\ngoal: g\nrepeat: 0\nacceptance_criteria:\n  - statement: s\n    check: contains\n    params: {text: a}\n    turn: [1]\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SC-1.yaml:3:9: /repeat fails the scenario schema: minimum: got 0, want 1")
	assert.Contains(t, err.Error(), "SC-1.yaml:8:11: /acceptance_criteria/0/turn fails the scenario schema")
	require.NoError(t, validate(s, "SC-1.yaml", []byte("id: SC-1\ngoal: g\n")))
}
