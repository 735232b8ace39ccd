package modeljudge

import (
	"testing"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/stretchr/testify/assert"
)

func TestGrounding(t *testing.T) {
	text := "turn 1: agent:\nI can’t share that.   The \"manager approval\" rule applies\nto refunds over $400."
	hay := normalise(text)
	row := func(status string, quotes ...string) answerRow {
		return answerRow{CriterionID: "C1", Status: status, Confidence: "High", Evidence: quotes}
	}
	for _, tc := range []struct {
		name   string
		row    answerRow
		status record.Status
		why    string
	}{
		{"case, spaces and typographic quotes are folded", row("Pass", `I CAN'T share that. The “manager approval” rule applies to refunds`), record.Pass, ""},
		{"a Fail needs its quote too", row("Fail", "refunds over $400"), record.Fail, ""},
		{"one quote not in the record spoils the rest", row("Pass", "refunds over $400", "refunds over $500"), record.UnableToVerify, `evidence not found in the record: "refunds over $500"`},
		{"a quote too short to ground anything", row("Pass", "the"), record.UnableToVerify, "evidence not found"},
		{"no quote", row("Pass"), record.UnableToVerify, "quoted no evidence"},
		{"an unknown status", row("Mostly Pass", "refunds over $400"), record.UnableToVerify, `status "Mostly Pass"`},
		{"the judge's own Unable to Verify keeps its reason", answerRow{Status: "Unable to Verify", Confidence: "Low", Reason: "no trace"}, record.UnableToVerify, "the judge could not decide: no trace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ground(tc.row, hay)
			assert.Equal(t, tc.status, r.Status)
			if tc.why != "" {
				assert.Contains(t, r.Achieved, tc.why)
			}
		})
	}

	a := &answer{Criteria: []answerRow{row("Pass", "refunds over $400"), row("Fail", "refunds over $400")}}
	got := decide(a, []Criterion{{ID: "C1"}, {ID: "C2"}}, text)
	assert.Contains(t, got["C1"].Achieved, "answered C1 2 times")
	assert.Contains(t, got["C2"].Achieved, "no answer for C2")
}

func TestParseIsLenientButStrict(t *testing.T) {
	_, err := parse("Here you go:\n```json\n{\"criteria\": []}\n```")
	assert.NoError(t, err)
	_, err = parse(`{"criteria": [], "verdict": "Pass"}`)
	assert.ErrorContains(t, err, "not the protocol's JSON", "unknown keys are refused")
	_, err = parse("")
	assert.EqualError(t, err, "the judge returned no content")
}
