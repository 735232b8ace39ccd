package judge_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/judge"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// criterion parses one acceptance criterion the way a scenario file would hold it.
func criterion(t *testing.T, yaml string) spec.Criterion {
	t.Helper()
	s, err := spec.ParseScenario("SC-1.yaml", []byte("id: SC-1\ngoal: g\nacceptance_criteria:\n  - "+yaml+"\n"))
	require.NoError(t, err)
	return s.Criteria[0]
}

func evidence() *judge.Evidence {
	return &judge.Evidence{
		AgentRan: true,
		Turns: []judge.Turn{
			{Input: "My order is ORD-1.", Output: "Thanks, I have ORD-1.", LatencyMs: 120},
			{Input: "Refund it", Output: `{"status":"refunded","amount":40,"items":[{"sku":"MUG"}]}`, LatencyMs: 300},
		},
		Session: &judge.Session{CallsObserved: true,
			Calls: []hook.Call{
				{Name: "lookup_order", Arguments: map[string]any{"order": "ORD-1"}},
				{Name: "issue_refund", Arguments: map[string]any{"order": "ORD-1", "amount": int64(40), "meta": map[string]any{"by": "bot", "x": 1.0}}},
			},
			Usage: hook.Tokens(300, 50)},
		Collect: map[string]any{"trace": map[string]any{"tickets": []any{map[string]any{"status": "open"}}}},
	}
}

func TestChecks(t *testing.T) {
	tests := []struct {
		criterion string
		want      judge.Status
		reason    string
	}{
		{`{statement: s, check: contains, params: {text: REFUNDED}}`, judge.Pass, "case-insensitive by default"},
		{`{statement: s, check: contains, params: {text: REFUNDED, case_sensitive: true}}`, judge.Fail, "case-sensitive when asked"},
		{`{statement: s, check: contains, params: {text: ORD-1.}}`, judge.Fail, "output is the final reply only"},
		{`{statement: s, check: contains, params: {text: "have ORD-1", in: transcript}}`, judge.Pass, "transcript holds every turn"},
		{`{statement: s, check: not_contains, params: {text: approval}}`, judge.Pass, "absent text"},
		{`{statement: s, check: regex, params: {pattern: '"amount":\d+'}}`, judge.Pass, "RE2 match"},
		{`{statement: s, check: not_regex, params: {pattern: 'amount'}}`, judge.Fail, "not_regex fails on a match"},
		{`{statement: s, check: equals, params: {value: 'Thanks, I have ORD-1.', in: transcript}}`, judge.Fail, "equals compares the whole text"},
		{`{statement: s, check: json_path, params: {path: '$.items[0].sku', equals: MUG}}`, judge.Pass, "path into the reply"},
		{`{statement: s, check: json_path, params: {path: '$.amount', equals: 40}}`, judge.Pass, "numbers compare as JSON"},
		{`{statement: s, check: json_path, params: {path: '$.amount', equals: "40"}}`, judge.Fail, "a string is not a number"},
		{`{statement: s, check: json_path, params: {path: '$.status', matches: '^refund'}}`, judge.Pass, "matches"},
		{`{statement: s, check: json_path, params: {path: '$.nope', exists: false}}`, judge.Pass, "exists: false"},
		{`{statement: s, check: json_path, params: {path: '$.nope', equals: 1}}`, judge.Fail, "a missing path fails"},
		{`{statement: s, check: json_path, params: {in: collect, path: '$.trace.tickets[0].status', equals: open}}`, judge.Pass, "collect's data"},
		{`{statement: s, check: called, params: {name: issue_refund}}`, judge.Pass, "called"},
		{`{statement: s, check: called, params: {name: issue_refund, arguments: {amount: 40, meta: {by: bot}}}}`, judge.Pass, "nested subset of arguments"},
		{`{statement: s, check: called, params: {name: issue_refund, arguments: {amount: 41}}}`, judge.Fail, "other arguments"},
		{`{statement: s, check: called, params: {name: lookup_order, times: 2}}`, judge.Fail, "times is exact"},
		{`{statement: s, check: called, params: {name: lookup_order, min: 1, max: 1}}`, judge.Pass, "bounds"},
		{`{statement: s, check: not_called, params: {name: escalate}}`, judge.Pass, "not called"},
		{`{statement: s, check: not_called, params: {name: issue_refund}}`, judge.Fail, "called after all"},
		{`{statement: s, check: call_sequence, params: {names: [lookup_order, issue_refund]}}`, judge.Pass, "strict is the default"},
		{`{statement: s, check: call_sequence, params: {names: [issue_refund, lookup_order]}}`, judge.Fail, "strict order"},
		{`{statement: s, check: call_sequence, params: {names: [issue_refund, lookup_order], mode: unordered}}`, judge.Pass, "unordered"},
		{`{statement: s, check: call_sequence, params: {names: [lookup_order], mode: superset}}`, judge.Pass, "observed calls include all of these"},
		{`{statement: s, check: call_sequence, params: {names: [lookup_order], mode: subset}}`, judge.Fail, "observed calls must all be among these"},
		{`{statement: s, check: usage, params: {total_max: 350}}`, judge.Pass, "within budget"},
		{`{statement: s, check: usage, params: {input_max: 299}}`, judge.Fail, "over the input budget"},
		{`{statement: s, check: latency, params: {max_ms: 300}}`, judge.Pass, "per turn by default"},
		{`{statement: s, check: latency, params: {max_ms: 300, per: scenario}}`, judge.Fail, "the scenario adds its turns"},
		{`{statement: s, check: turns, params: {max: 1}}`, judge.Fail, "two turns taken"},
		{`{statement: s, check: llm_judge}`, judge.UnableToVerify, "no judge model"},
		{`{statement: s, check: mcp_probe}`, judge.UnableToVerify, "unsupported checks are not guessed"},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprintf("%02d_%s", i, tc.reason), func(t *testing.T) {
			row := judge.Evaluate([]spec.Criterion{criterion(t, tc.criterion)}, evidence())[0]
			assert.Equal(t, tc.want, row.Status, "%s\nexpected: %s\nachieved: %s", tc.reason, row.Expected, row.Achieved)
			assert.NotEmpty(t, row.Expected)
			assert.NotEmpty(t, row.Achieved)
			if row.Status != judge.UnableToVerify {
				assert.NotEmpty(t, row.Evidence, "a decided row quotes its evidence")
				assert.Equal(t, "High", row.Confidence)
			}
		})
	}
}

func TestObservability(t *testing.T) {
	ev := evidence()
	ev.Session, ev.Collect = nil, nil
	for _, c := range []string{
		`{statement: s, check: called, params: {name: x}}`,
		`{statement: s, check: not_called, params: {name: issue_refund}}`,
		`{statement: s, check: call_sequence, params: {names: []}}`,
		`{statement: s, check: usage, params: {total_max: 1}}`,
		`{statement: s, check: json_path, params: {in: collect, path: '$.a', exists: true}}`,
	} {
		row := judge.Evaluate([]spec.Criterion{criterion(t, c)}, ev)[0]
		assert.Equal(t, judge.UnableToVerify, row.Status, c)
		assert.Equal(t, judge.NotObservable, row.Reason, c)
	}
	// calls: [] is positive evidence that nothing was called.
	ev.Session = &judge.Session{CallsObserved: true}
	row := judge.Evaluate([]spec.Criterion{criterion(t, `{statement: s, check: not_called, params: {name: issue_refund}}`)}, ev)[0]
	assert.Equal(t, judge.Pass, row.Status)
}

func TestAgentNeverRan(t *testing.T) {
	ev := &judge.Evidence{}
	row := judge.Evaluate([]spec.Criterion{criterion(t, `{statement: s, check: not_contains, params: {text: x}}`)}, ev)[0]
	assert.Equal(t, judge.UnableToVerify, row.Status, "no reply is no pass, even for a negative check")
	assert.Equal(t, judge.AgentNeverRan, row.Reason)
}

func TestFailQuotesWhatTheAgentDid(t *testing.T) {
	row := judge.Evaluate([]spec.Criterion{criterion(t, `{statement: s, check: not_called, params: {name: issue_refund}}`)}, evidence())[0]
	assert.Equal(t, judge.Fail, row.Status)
	assert.Equal(t, "issue_refund is never called", row.Expected)
	assert.Contains(t, row.Evidence, `"name":"issue_refund"`)
	assert.Contains(t, row.Evidence, `"amount":40`)
}

func TestForbidden(t *testing.T) {
	hits := judge.Forbidden([]string{"i have ord-1", "never said", ""}, evidence())
	require.Len(t, hits, 1)
	assert.Equal(t, 1, hits[0].Turn)
	assert.Contains(t, hits[0].Quote, "I have ORD-1")
}

func TestScenarioStatus(t *testing.T) {
	pass := record.Row{Status: judge.Pass}
	fail := record.Row{Status: judge.Fail}
	undecidable := record.Row{Status: judge.UnableToVerify, Reason: judge.Undecidable}
	unobserved := record.Row{Status: judge.UnableToVerify, Reason: judge.NotObservable}
	tests := []struct {
		name   string
		rows   []record.Row
		hits   []record.ForbiddenHit
		want   judge.Status
		reason string
	}{
		{"all pass", []record.Row{pass, pass}, nil, judge.Pass, ""},
		{"a fail wins over unable to verify", []record.Row{undecidable, fail, pass}, nil, judge.Fail, ""},
		{"unable to verify is not a pass", []record.Row{pass, undecidable, unobserved}, nil, judge.UnableToVerify, judge.NotObservable},
		{"a forbidden hit fails", []record.Row{pass}, []record.ForbiddenHit{{Text: "x"}}, judge.Fail, ""},
		{"nothing to decide", nil, nil, judge.UnableToVerify, judge.Undecidable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := judge.ScenarioStatus(tc.rows, tc.hits, false)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.reason, reason)
		})
	}
}
