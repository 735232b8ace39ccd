package history

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rookgo/rookgo/internal/record"
)

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
