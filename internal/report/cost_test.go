package report

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rookgo/rookgo/internal/record"
)

func TestVerdicts(t *testing.T) {
	table := &record.Pricing{Currency: "USD", AgentModel: "small", Models: map[string]record.Price{
		"small": {InputPerMillion: 0.15, OutputPerMillion: 0.60}, "judge-1": {InputPerMillion: 3, OutputPerMillion: 15}}}
	in := int64(2_000_000)
	agent := &record.Verdict{Usage: record.Tokens(1_000_000, 500_000)}                                                                 // 0.15 + 0.30
	judged := &record.Verdict{Usage: record.Tokens(0, 0), Judge: &record.JudgeInfo{Model: "judge-1", Usage: record.Tokens(1000, 100)}} // 0.003 + 0.0015
	cached := &record.Verdict{Usage: record.Tokens(0, 0), Judge: &record.JudgeInfo{Model: "judge-1", Cached: true, Usage: record.Tokens(1000, 100)}}
	c := VerdictsCost(table, []*record.Verdict{agent, judged, cached})
	assert.InDelta(t, 0.45, c.Agent, 1e-12)
	assert.InDelta(t, 0.0045, c.Judge, 1e-12, "a cached answer was paid for by the run that asked")
	assert.InDelta(t, 0.4545, c.Total, 1e-12)
	assert.Empty(t, c.Unpriced)

	c = VerdictsCost(table, []*record.Verdict{
		{Usage: nil},
		{Usage: &record.Usage{Input: &in}},
		{Usage: record.Tokens(10, 10), Judge: &record.JudgeInfo{Model: "judge-2", Usage: record.Tokens(1, 1)}},
	})
	assert.InDelta(t, (10*0.15+10*0.60)/1e6, c.Total, 1e-15, "only what was reported and priced is summed")
	assert.Equal(t, []string{"agent usage not reported", "judge model judge-2 has no price"}, c.Unpriced)

	var sum Cost
	sum.Add(VerdictsCost(table, []*record.Verdict{agent}))
	sum.Add(c)
	assert.InDelta(t, 0.45+(10*0.15+10*0.60)/1e6, sum.Total, 1e-12)
	assert.Len(t, sum.Unpriced, 2)
	assert.Equal(t, "USD 0.4500", Money(table, 0.45))
}

// A simulated user's model is priced at its model, its cached answers not at all (the run
// that asked paid), and a usage it left out is said, not priced as zero.
func TestASimulatedUserIsPriced(t *testing.T) {
	table := &record.Pricing{Currency: "USD", AgentModel: "small", Models: map[string]record.Price{
		"small": {InputPerMillion: 0.15, OutputPerMillion: 0.60}, "player": {InputPerMillion: 1, OutputPerMillion: 2}}}
	played := &record.Verdict{Usage: record.Tokens(0, 0), Simulator: &record.SimulatorInfo{Model: "player", Answers: 3, Usage: record.Tokens(1_000_000, 500_000)}}
	cached := &record.Verdict{Usage: record.Tokens(0, 0), Simulator: &record.SimulatorInfo{Model: "player", Answers: 3, Cached: 3}}
	c := VerdictsCost(table, []*record.Verdict{played, cached})
	assert.InDelta(t, 2.0, c.User, 1e-12)
	assert.InDelta(t, 2.0, c.Total, 1e-12)
	assert.Empty(t, c.Unpriced)
	c = VerdictsCost(table, []*record.Verdict{{Usage: record.Tokens(0, 0), Simulator: &record.SimulatorInfo{Model: "player", Answers: 2}}})
	assert.Zero(t, c.User)
	assert.Equal(t, []string{"simulated user usage not reported"}, c.Unpriced)
}
