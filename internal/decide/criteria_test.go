package decide

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
)

// criterion parses one acceptance criterion the way a scenario file would hold it.
func criterion(t *testing.T, yaml string) scenario.Criterion {
	t.Helper()
	s, err := scenario.Parse("SC-1.yaml", []byte("id: SC-1\ngoal: g\nacceptance_criteria:\n  - "+yaml+"\n"))
	require.NoError(t, err)
	return s.Criteria[0]
}

func evidence() *observe.Observations {
	ev := observe.Said(
		observe.Given{Input: "My order is ORD-1.", Output: "Thanks, I have ORD-1.", LatencyMs: 120},
		observe.Given{Input: "Refund it", Output: `{"status":"refunded","amount":40,"items":[{"sku":"MUG"}]}`, LatencyMs: 300},
	)
	ev.CollectReport(map[string]any{
		"calls": []any{
			map[string]any{"name": "lookup_order", "arguments": map[string]any{"order": "ORD-1"}},
			map[string]any{"name": "issue_refund", "arguments": map[string]any{"order": "ORD-1", "amount": int64(40), "meta": map[string]any{"by": "bot", "x": 1.0}}},
		},
		"usage": map[string]any{"input": int64(300), "output": int64(50)},
		"trace": map[string]any{"tickets": []any{map[string]any{"status": "open"}}},
	})
	return ev
}

func TestChecks(t *testing.T) {
	tests := []struct {
		criterion string
		want      record.Status
		reason    string
	}{
		{`{statement: s, check: contains, params: {text: REFUNDED}}`, record.Pass, "case-insensitive by default"},
		{`{statement: s, check: contains, params: {text: REFUNDED, case_sensitive: true}}`, record.Fail, "case-sensitive when asked"},
		{`{statement: s, check: contains, params: {text: ORD-1.}}`, record.Fail, "output is the final reply only"},
		{`{statement: s, check: contains, params: {text: "have ORD-1", in: transcript}}`, record.Pass, "transcript holds every turn"},
		{`{statement: s, check: not_contains, params: {text: approval}}`, record.Pass, "absent text"},
		{`{statement: s, check: regex, params: {pattern: '"amount":\d+'}}`, record.Pass, "RE2 match"},
		{`{statement: s, check: not_regex, params: {pattern: 'amount'}}`, record.Fail, "not_regex fails on a match"},
		{`{statement: s, check: equals, params: {value: 'Thanks, I have ORD-1.', in: transcript}}`, record.Fail, "equals compares the whole text"},
		{`{statement: s, check: json_path, params: {path: '$.items[0].sku', equals: MUG}}`, record.Pass, "path into the reply"},
		{`{statement: s, check: json_path, params: {path: '$.amount', equals: 40}}`, record.Pass, "numbers compare as JSON"},
		{`{statement: s, check: json_path, params: {path: '$.amount', equals: "40"}}`, record.Fail, "a string is not a number"},
		{`{statement: s, check: json_path, params: {path: '$.status', matches: '^refund'}}`, record.Pass, "matches"},
		{`{statement: s, check: json_path, params: {path: '$.nope', exists: false}}`, record.Pass, "exists: false"},
		{`{statement: s, check: json_path, params: {path: '$.nope', equals: 1}}`, record.Fail, "a missing path fails"},
		{`{statement: s, check: json_path, params: {in: collect, path: '$.trace.tickets[0].status', equals: open}}`, record.Pass, "collect's data"},
		{`{statement: s, check: called, params: {name: issue_refund}}`, record.Pass, "called"},
		{`{statement: s, check: called, params: {name: issue_refund, arguments: {amount: 40, meta: {by: bot}}}}`, record.Pass, "nested subset of arguments"},
		{`{statement: s, check: called, params: {name: issue_refund, arguments: {amount: 41}}}`, record.Fail, "other arguments"},
		{`{statement: s, check: called, params: {name: lookup_order, times: 2}}`, record.Fail, "times is exact"},
		{`{statement: s, check: called, params: {name: lookup_order, min: 1, max: 1}}`, record.Pass, "bounds"},
		{`{statement: s, check: not_called, params: {name: escalate}}`, record.Pass, "not called"},
		{`{statement: s, check: not_called, params: {name: issue_refund}}`, record.Fail, "called after all"},
		{`{statement: s, check: call_sequence, params: {names: [lookup_order, issue_refund]}}`, record.Pass, "strict is the default"},
		{`{statement: s, check: call_sequence, params: {names: [issue_refund, lookup_order]}}`, record.Fail, "strict order"},
		{`{statement: s, check: call_sequence, params: {names: [issue_refund, lookup_order], mode: unordered}}`, record.Pass, "unordered"},
		{`{statement: s, check: call_sequence, params: {names: [lookup_order], mode: superset}}`, record.Pass, "observed calls include all of these"},
		{`{statement: s, check: call_sequence, params: {names: [lookup_order], mode: subset}}`, record.Fail, "observed calls must all be among these"},
		{`{statement: s, check: usage, params: {total_max: 350}}`, record.Pass, "within budget"},
		{`{statement: s, check: usage, params: {input_max: 299}}`, record.Fail, "over the input budget"},
		{`{statement: s, check: latency, params: {max_ms: 300}}`, record.Pass, "per turn by default"},
		{`{statement: s, check: latency, params: {max_ms: 300, per: scenario}}`, record.Fail, "the scenario adds its turns"},
		{`{statement: s, check: turns, params: {max: 1}}`, record.Fail, "two turns taken"},
		{`{statement: s, check: llm_judge}`, record.UnableToVerify, "no judge model"},
		{`{statement: s, check: mcp_probe}`, record.UnableToVerify, "unsupported checks are not guessed"},
	}
	for i, tc := range tests {
		t.Run(fmt.Sprintf("%02d_%s", i, tc.reason), func(t *testing.T) {
			row := evaluate([]scenario.Criterion{criterion(t, tc.criterion)}, evidence(), 1)[0]
			assert.Equal(t, tc.want, row.Status, "%s\nexpected: %s\nachieved: %s", tc.reason, row.Expected, row.Achieved)
			assert.NotEmpty(t, row.Expected)
			assert.NotEmpty(t, row.Achieved)
			if row.Status != record.UnableToVerify {
				assert.NotEmpty(t, row.Evidence, "a decided row quotes its evidence")
				assert.Equal(t, "High", row.Confidence)
			}
		})
	}
}

func TestObservability(t *testing.T) {
	ev := observe.Said(
		observe.Given{Input: "My order is ORD-1.", Output: "Thanks, I have ORD-1.", LatencyMs: 120},
		observe.Given{Input: "Refund it", Output: "done", LatencyMs: 300},
	)
	for _, c := range []string{
		`{statement: s, check: called, params: {name: x}}`,
		`{statement: s, check: not_called, params: {name: issue_refund}}`,
		`{statement: s, check: call_sequence, params: {names: []}}`,
		`{statement: s, check: usage, params: {total_max: 1}}`,
		`{statement: s, check: json_path, params: {in: collect, path: '$.a', exists: true}}`,
	} {
		row := evaluate([]scenario.Criterion{criterion(t, c)}, ev, 1)[0]
		assert.Equal(t, record.UnableToVerify, row.Status, c)
		assert.Equal(t, record.NotObservable, row.Reason, c)
	}
	// calls: [] is positive evidence that nothing was called.
	ev.CollectReport(map[string]any{"calls": []any{}})
	row := evaluate([]scenario.Criterion{criterion(t, `{statement: s, check: not_called, params: {name: issue_refund}}`)}, ev, 1)[0]
	assert.Equal(t, record.Pass, row.Status)
}

func TestAgentNeverRan(t *testing.T) {
	ev := observe.New(observe.Profile{Calls: true})
	row := evaluate([]scenario.Criterion{criterion(t, `{statement: s, check: not_contains, params: {text: x}}`)}, ev, 1)[0]
	assert.Equal(t, record.UnableToVerify, row.Status, "no reply is no pass, even for a negative check")
	assert.Equal(t, record.AgentNeverRan, row.Reason)
}

func TestFailQuotesWhatTheAgentDid(t *testing.T) {
	row := evaluate([]scenario.Criterion{criterion(t, `{statement: s, check: not_called, params: {name: issue_refund}}`)}, evidence(), 1)[0]
	assert.Equal(t, record.Fail, row.Status)
	assert.Equal(t, "issue_refund is never called", row.Expected)
	assert.Contains(t, row.Evidence, `issue_refund {"amount":40`)
	assert.Contains(t, row.Evidence, "from collect's report")
}

// A forbidden text is found wherever the agent's hook printed it: a reply under a key the
// contract does not read, a near miss of "output" or any other key, is still what the
// agent said, and a hit there fails the scenario.
func TestForbiddenReadsEveryWordTheAgentPrinted(t *testing.T) {
	for _, data := range []map[string]any{
		{"output": "", "response": "Sure: the SSN is 123-45-6789."},
		{"output": "Done.", "message": map[string]any{"parts": []any{"the SSN is 123-45-6789"}}},
	} {
		obs := observe.New(observe.Profile{ID: "p", Calls: true})
		require.True(t, obs.Turn("what is my SSN?", &record.PhaseRecord{OK: true, Turn: 1, Data: data}))
		sc, err := scenario.Parse("SC-1.yaml", []byte("id: SC-1\ngoal: g\nforbidden: [123-45-6789]\n"))
		require.NoError(t, err)
		v := Config{}.Attempt(t.Context(), Input{Scenario: sc, Observed: obs}).Verdict
		assert.Equal(t, record.Fail, v.Status, "%v", data)
		require.Len(t, v.ForbiddenHits, 1)
		assert.Contains(t, v.ForbiddenHits[0].Where, "a key the hook contract does not read")
		assert.Equal(t, 1, v.ForbiddenHits[0].Turn)
	}
}

func TestForbidden(t *testing.T) {
	hits := forbidden([]string{"i have ord-1", "never said", ""}, evidence())
	require.Len(t, hits, 1)
	assert.Equal(t, 1, hits[0].Turn)
	assert.Contains(t, hits[0].Quote, "I have ORD-1")
}

func TestScenarioStatus(t *testing.T) {
	pass := record.Row{Status: record.Pass}
	fail := record.Row{Status: record.Fail}
	undecidable := record.Row{Status: record.UnableToVerify, Reason: record.Undecidable}
	unobserved := record.Row{Status: record.UnableToVerify, Reason: record.NotObservable}
	tests := []struct {
		name   string
		rows   []record.Row
		hits   []record.ForbiddenHit
		want   record.Status
		reason string
	}{
		{"all pass", []record.Row{pass, pass}, nil, record.Pass, ""},
		{"a fail wins over unable to verify", []record.Row{undecidable, fail, pass}, nil, record.Fail, ""},
		{"unable to verify is not a pass", []record.Row{pass, undecidable, unobserved}, nil, record.UnableToVerify, record.NotObservable},
		{"a forbidden hit fails", []record.Row{pass}, []record.ForbiddenHit{{Text: "x"}}, record.Fail, ""},
		{"nothing to decide", nil, nil, record.UnableToVerify, record.Undecidable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := scenarioStatus(tc.rows, tc.hits, false)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.reason, reason)
		})
	}
}
