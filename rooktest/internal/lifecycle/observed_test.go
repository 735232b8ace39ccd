package lifecycle_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// What a hook did not report is not observed: a count left out is not zero, and a turn
// that printed no calls list did not observe "no calls". Each case runs real hooks over
// two turns and reads the verdict the records hold.
func TestWhatNoHookReportedIsNotObserved(t *testing.T) {
	tests := []struct {
		name          string
		turn1, turn2  string
		collect       string
		criterion     string
		status        record.Status
		achievedHas   string
		verdictTokens map[string]any
	}{
		{name: "an output count left out is not zero",
			turn1:     `{"output": "a", "conversation": "c", "usage": {"input_tokens": 500}}`,
			turn2:     `{"output": "b", "conversation": "c", "usage": {"input_tokens": 500}}`,
			criterion: `{statement: s, check: usage, params: {output_max: 10}}`,
			status:    record.UnableToVerify, achievedHas: "no phase reported usage.output",
			verdictTokens: map[string]any{"input_tokens": 1000}},
		{name: "one turn's output count left out",
			turn1:     `{"output": "a", "conversation": "c", "usage": {"input": 5, "output": 5}}`,
			turn2:     `{"output": "b", "conversation": "c", "usage": {"input": 5}}`,
			criterion: `{statement: s, check: usage, params: {total_max: 1000}}`,
			status:    record.UnableToVerify, achievedHas: "turn 2 reported no usage.output",
			verdictTokens: map[string]any{"input_tokens": 10}},
		{name: "an input budget is decided from the input counts alone",
			turn1:     `{"output": "a", "conversation": "c", "usage": {"input": 5}}`,
			turn2:     `{"output": "b", "conversation": "c", "usage": {"input": 7}}`,
			criterion: `{statement: s, check: usage, params: {input_max: 11}}`,
			status:    record.Fail, achievedHas: "used input 12 tokens",
			verdictTokens: map[string]any{"input_tokens": 12}},
		{name: "collect's session count fills what the turns left out",
			turn1:     `{"output": "a", "conversation": "c", "usage": {"input": 5}}`,
			turn2:     `{"output": "b", "conversation": "c"}`,
			collect:   `json:{"usage": {"output_tokens": 9, "input_tokens": 40}}`,
			criterion: `{statement: s, check: usage, params: {output_max: 10}}`,
			status:    record.Pass, achievedHas: "used output 9 tokens",
			verdictTokens: map[string]any{"input_tokens": 40, "output_tokens": 9}},
		{name: "a turn without a calls list leaves not_called undecided",
			turn1:     `{"output": "a", "conversation": "c", "calls": []}`,
			turn2:     `{"output": "b", "conversation": "c"}`,
			criterion: `{statement: s, check: not_called, params: {name: issue_refund}}`,
			status:    record.UnableToVerify, achievedHas: "turn 2 reported no \"calls\""},
		{name: "a turn without a calls list leaves call_sequence undecided",
			turn1:     `{"output": "a", "conversation": "c"}`,
			turn2:     `{"output": "b", "conversation": "c", "calls": [{"name": "x"}]}`,
			criterion: `{statement: s, check: call_sequence, params: {names: [x]}}`,
			status:    record.UnableToVerify, achievedHas: "turn 1 reported no \"calls\""},
		{name: "every turn observed: not_called passes",
			turn1:     `{"output": "a", "conversation": "c", "calls": []}`,
			turn2:     `{"output": "b", "conversation": "c", "calls": []}`,
			criterion: `{statement: s, check: not_called, params: {name: issue_refund}}`,
			status:    record.Pass, achievedHas: "observed calls: none"},
		{name: "collect's session calls decide when a turn printed none",
			turn1:     `{"output": "a", "conversation": "c", "calls": []}`,
			turn2:     `{"output": "b", "conversation": "c"}`,
			collect:   `json:{"calls": [{"name": "issue_refund", "arguments": {}}]}`,
			criterion: `{statement: s, check: not_called, params: {name: issue_refund}}`,
			status:    record.Fail, achievedHas: "issue_refund was called 1 time(s)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"FAKEHOOK_EXECUTE_TURN1": "json:" + tc.turn1, "FAKEHOOK_EXECUTE_TURN2": "json:" + tc.turn2}
			if tc.collect != "" {
				env["FAKEHOOK_COLLECT"] = tc.collect
			}
			f := newRun(t, env, "")
			sc := parseScenario(t, "setup_messages: [first]\nmulti_turn: true\ngoal: g\nacceptance_criteria:\n  - "+tc.criterion+"\n")
			o := f.run.Scenario(context.Background(), sc, f.logs.add)
			require.Empty(t, o.Attempts[0].Failures)
			row := o.Attempts[0].Verdict.Criteria[0]
			assert.Equal(t, tc.status, row.Status, row.Achieved)
			assert.Contains(t, row.Achieved, tc.achievedHas)
			if tc.status == record.UnableToVerify {
				assert.Equal(t, record.NotObservable, row.Reason)
			}
			v := readYAML(t, filepath.Join(o.Dir, "verdict.yaml"))
			if tc.verdictTokens != nil {
				assert.Equal(t, tc.verdictTokens, v["usage"], "a count no hook reported is absent from the record, not 0")
			}
		})
	}
}

// Numbers compare exactly: past 2^53 a float64 would make ...789 equal ...700, and the
// verdict quotes the reply's own digits.
func TestNumbersCompareExactly(t *testing.T) {
	const reply = `{"output": "{\"id\": 1234567890123456700, \"big\": 123456789012345678901234567890, \"price\": 0.30000000000000004}", "conversation": "c", "calls": [{"name": "pay", "arguments": {"account": 1234567890123456700}}]}`
	tests := []struct {
		criterion   string
		status      record.Status
		achievedHas string
	}{
		{`{statement: s, check: json_path, params: {path: $.id, equals: 1234567890123456789}}`, record.Fail, "$.id is 1234567890123456700"},
		{`{statement: s, check: json_path, params: {path: $.id, equals: 1234567890123456700}}`, record.Pass, "$.id is 1234567890123456700"},
		{`{statement: s, check: json_path, params: {path: $.big, equals: 123456789012345678901234567891}}`, record.Fail, "123456789012345678901234567890"},
		{`{statement: s, check: json_path, params: {path: $.big, equals: 123456789012345678901234567890}}`, record.Pass, "123456789012345678901234567890"},
		{`{statement: s, check: json_path, params: {path: $.price, equals: 0.3}}`, record.Fail, "0.30000000000000004"},
		{`{statement: s, check: json_path, params: {path: $.id, equals: 1234567890123456700.0}}`, record.Pass, ""},
		{`{statement: s, check: called, params: {name: pay, arguments: {account: 1234567890123456789}}}`, record.Fail, "called 0 time(s)"},
		{`{statement: s, check: called, params: {name: pay, arguments: {account: 1234567890123456700}}}`, record.Pass, "called 1 time(s)"},
	}
	for _, tc := range tests {
		t.Run(tc.criterion, func(t *testing.T) {
			t.Parallel()
			f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": "json:" + reply}, "")
			o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\nacceptance_criteria:\n  - "+tc.criterion+"\n"), f.logs.add)
			require.Empty(t, o.Attempts[0].Failures)
			row := o.Attempts[0].Verdict.Criteria[0]
			assert.Equal(t, tc.status, row.Status, row.Achieved)
			assert.Contains(t, row.Achieved, tc.achievedHas)
		})
	}
}

// A verdict.yaml no judge wrote (here a collect hook forged one while judge was skipped)
// is untrusted: report.yaml never counts it as what it says, and the report names it.
func TestAForgedVerdictIsNotCounted(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_COLLECT": "forge-verdict"}, "")
	f.restart(t, lifecycle.Selection{spec.Prepare: true, spec.Open: true, spec.Execute: true, spec.Close: true, spec.Collect: true})
	sc := parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: never said}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.Empty(t, o.Attempts[0].Failures)
	require.Nil(t, o.Verdict, "judge did not run")
	require.FileExists(t, filepath.Join(o.Dir, "verdict.yaml"), "the hook wrote one")

	rep, err := f.run.Finish(context.Background(), time.Now())
	require.ErrorIs(t, err, store.ErrUntrusted, "a forged verdict is a problem of the run")
	assert.Equal(t, 0, rep.Totals.Passed)
	assert.Equal(t, 1, rep.Totals.Unjudged)
	assert.Equal(t, 1, rep.Totals.Untrusted)
	assert.NoError(t, rep.Totals.Check())

	r, err := report.Build(f.run.Dir, "")
	require.NoError(t, err)
	t.Cleanup(r.Close)
	first := slices.Collect(r.Scenarios.All())
	require.NoError(t, r.Err())
	require.NotEmpty(t, first)
	assert.Equal(t, "untrusted", first[0].Status)
}

// A secret that is all digits never changes what a hook's stdout parses to, and one the
// hook escaped another way than Go's encoder (\/, \u00e9) is redacted all the same.
func TestRedactionAfterParsing(t *testing.T) {
	const token = "sk/café-9f8e7d"
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": `json:{"output": "order 14821 for sk\/caf\u00e9-9f8e7d", "conversation": "c", "calls": [], "n": 14821}`}, "")
	f.cfg.Redactor = store.NewRedactor(map[string]string{"PIN": "4821", "TOKEN": token})
	f.restart(t, nil)
	o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: order}}\n"), f.logs.add)
	require.Empty(t, o.Attempts[0].Failures, "a digit secret does not break the hook's JSON")
	assert.Equal(t, record.Pass, o.Verdict.Status)
	for _, name := range []string{"hooks.json", "response.json"} {
		data, err := os.ReadFile(filepath.Join(o.Dir, name))
		require.NoError(t, err)
		assert.NotContains(t, string(data), `sk\/caf\u00e9`, name)
		assert.NotContains(t, string(data), token, name)
		assert.Contains(t, string(data), "[redacted:TOKEN]", name)
	}
	resp := readJSON(t, filepath.Join(o.Dir, "response.json"))
	assert.Equal(t, "order 1[redacted:PIN] for [redacted:TOKEN]", resp["output"])
	assert.Contains(t, resp["raw_response"], `"output": "order 1[redacted:PIN] for [redacted:TOKEN]"`)
}
