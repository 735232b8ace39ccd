package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Cohen's kappa of a worked table, and Kish's effective votes from the pairs' mean kappa.
func TestPanelKappaAndEffectiveVotes(t *testing.T) {
	k, ok := kappa(20, 5, 10, 15) // agree 35 of 50 (0.7); by chance 0.5*0.6 + 0.5*0.4 = 0.5
	require.True(t, ok)
	assert.InDelta(t, 0.4, k, 1e-9)
	_, ok = kappa(0, 0, 0, 0)
	assert.False(t, ok, "no control in common says nothing")
	k, _ = kappa(0, 6, 6, 0) // always disagreeing: below chance, taken as 0 for the votes
	assert.Less(t, k, 0.0)

	p := &PanelTotals{Members: make([]PanelMemberTotals, 3), Pairs: []PanelPair{
		{A: "a", B: "b", PassPass: 20, PassFail: 5, FailPass: 10, FailFail: 15}, {A: "a", B: "c", PassFail: 6, FailPass: 6}, {A: "b", B: "c"}}}
	p.settle()
	require.NotNil(t, p.EffectiveVotes)
	assert.InDelta(t, 3/(1+2*(0.4+0)/2), *p.EffectiveVotes, 0.01, "the pair with no control in common is left out of the mean")
	assert.Nil(t, p.Pairs[2].Kappa)

	none := &PanelTotals{Members: make([]PanelMemberTotals, 2), Pairs: []PanelPair{{A: "a", B: "b"}}}
	none.settle()
	assert.Nil(t, none.EffectiveVotes)
	assert.Contains(t, none.String(), "effective votes unknown")
}
