package observe_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// attempt is an attempt's hooks.json: each turn a list of tries' data, the last the one
// that replied; collect's data, when it ran.
func attempt(collect map[string]any, turns ...[]map[string]any) *observe.Observations {
	var recs []*record.PhaseRecord
	for i, tries := range turns {
		last := &record.PhaseRecord{OK: true, Turn: i + 1, Data: tries[len(tries)-1]}
		for _, d := range tries[:len(tries)-1] {
			last.Tries = append(last.Tries, &record.PhaseRecord{OK: true, Turn: i + 1, Data: d})
		}
		recs = append(recs, last)
	}
	h := record.HookPhases{Execute: &record.PhaseRecord{Turns: recs}}
	if collect != nil {
		h.Collect = &record.PhaseRecord{OK: true, Data: collect}
	}
	obs := observe.New(observe.Profile{ID: "p", Calls: true})
	obs.Hooks(h, func(int) string { return "hello" })
	return obs
}

func reply(more ...any) map[string]any {
	m := map[string]any{"output": "done"}
	for i := 0; i+1 < len(more); i += 2 {
		m[more[i].(string)] = more[i+1]
	}
	return m
}

func call(name string, args ...any) map[string]any {
	a := map[string]any{}
	for i := 0; i+1 < len(args); i += 2 {
		a[args[i].(string)] = args[i+1]
	}
	return map[string]any{"name": name, "arguments": a}
}

func calls(c ...map[string]any) []any {
	out := []any{}
	for _, x := range c {
		out = append(out, x)
	}
	return out
}

func usage(in, out int64) map[string]any { return map[string]any{"input": in, "output": out} }

// toolSpan is an execute_tool span under a hook call (nil: its parent never arrived).
func toolSpan(id, name string, under *record.HookCall, more ...string) record.Span {
	sp := record.Span{SpanID: id, Name: "execute_tool " + name, Status: "ok",
		Attributes: map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}}
	if len(more) > 0 {
		sp.Attributes["gen_ai.tool.call.id"] = more[0]
	}
	if under != nil {
		sp.Hook, sp.ParentSpanID = under, "ff"+id
	} else {
		sp.ParentSpanID = "never-arrived"
	}
	return sp
}

func modelSpan(id string, under record.HookCall, in, out int64) record.Span {
	return record.Span{SpanID: id, Name: "chat", Status: "ok", Hook: &under, ParentSpanID: "ff" + id,
		Attributes: map[string]any{"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": in, "gen_ai.usage.output_tokens": out}}
}

func try(turn, n int) *record.HookCall {
	return &record.HookCall{Phase: "execute", Turn: turn, Try: n}
}

// shown is each call as an evidence line names it.
func shown(cs []record.Call) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Name+" "+c.Source())
	}
	return out
}

// The merge policy (the package comment) as a table: every source of calls and usage, and
// what the session's and one turn's observations hold.
func TestMergePolicy(t *testing.T) {
	orphanNote := "1 span(s) name a parent that never arrived"
	tests := []struct {
		name  string
		obs   func() *observe.Observations
		calls []string // the session's, each with its provenance
		// whole is the session's calls' coverage; turn1 says whether turn 1's view is whole.
		whole, turn1 bool
		usage        string // the session's usage as a record shows it, "" for none observed
	}{
		{name: "execute's calls, counted once with collect's report of the same",
			obs: func() *observe.Observations {
				return attempt(map[string]any{"calls": calls(call("lookup", "id", int64(1)))},
					[]map[string]any{reply("calls", calls(call("lookup", "id", int64(1))))})
			},
			calls: []string{"lookup from execute's report, turn 1, and collect's report"}, whole: true, turn1: true},
		{name: "collect adds what no turn holds, after the turns",
			obs: func() *observe.Observations {
				return attempt(map[string]any{"calls": calls(call("lookup"), call("escalate"))},
					[]map[string]any{reply("calls", calls(call("lookup")))})
			},
			calls: []string{"lookup from execute's report, turn 1, and collect's report", "escalate from collect's report"}, whole: true, turn1: true},
		{name: "two equal calls in two turns match collect's two, one each",
			obs: func() *observe.Observations {
				return attempt(map[string]any{"calls": calls(call("lookup"), call("lookup"))},
					[]map[string]any{reply("calls", calls(call("lookup")))}, []map[string]any{reply("calls", calls(call("lookup")))})
			},
			calls: []string{"lookup from execute's report, turn 1, and collect's report", "lookup from execute's report, turn 2, and collect's report"},
			whole: true, turn1: true},
		{name: "collect's calls: [] hides nothing the trace saw",
			obs: func() *observe.Observations {
				o := attempt(map[string]any{"calls": []any{}}, []map[string]any{reply()})
				o.Trace(record.Trace{Spans: []record.Span{toolSpan("a1", "issue_refund", try(1, 1))}})
				return o
			},
			calls: []string{"issue_refund from the agent's trace, turn 1"}, whole: true, turn1: true},
		{name: "a turn without calls is whole on collect's report of the session, not on its own",
			obs: func() *observe.Observations {
				return attempt(map[string]any{"calls": calls(call("lookup"))}, []map[string]any{reply()})
			},
			calls: []string{"lookup from collect's report"}, whole: true, turn1: false},
		{name: "the trace's span and the hook's call with one id are one call",
			obs: func() *observe.Observations {
				o := attempt(nil, []map[string]any{reply("calls", calls(map[string]any{"id": "c1", "name": "lookup"}))})
				o.Trace(record.Trace{Spans: []record.Span{toolSpan("a1", "lookup", try(1, 1), "c1")}})
				return o
			},
			calls: []string{"lookup from execute's report, turn 1, and the agent's trace"}, whole: true, turn1: true},
		{name: "a turn's tries are all its own: a call the turned-away try made was made",
			obs: func() *observe.Observations {
				return attempt(nil, []map[string]any{{"retry_after_ms": int64(5), "calls": calls(call("issue_refund"))}, reply("calls", []any{})})
			},
			calls: []string{"issue_refund from execute's report, turn 1"}, whole: true, turn1: true},
		{name: "a span under a later try of a turn is the turn's",
			obs: func() *observe.Observations {
				o := attempt(nil, []map[string]any{{"retry_after_ms": int64(5)}, reply()})
				o.Trace(record.Trace{Spans: []record.Span{toolSpan("a1", "issue_refund", try(1, 2))}})
				return o
			},
			calls: []string{"issue_refund from the agent's trace, turn 1 try 2"}, whole: true, turn1: true},
		{name: "a span whose parent never arrived is the session's, and no turn is whole without it",
			obs: func() *observe.Observations {
				o := attempt(nil, []map[string]any{reply("calls", []any{})}, []map[string]any{reply("calls", []any{})})
				o.Trace(record.Trace{Incomplete: orphanNote, Spans: []record.Span{toolSpan("a1", "issue_refund", nil)}})
				return o
			},
			calls: []string{"issue_refund from the agent's trace"}, whole: true, turn1: false},
		{name: "a tool span under open or close is the session's, and one under collect the harness's",
			obs: func() *observe.Observations {
				o := attempt(nil, []map[string]any{reply("calls", []any{})})
				o.Trace(record.Trace{Spans: []record.Span{toolSpan("a1", "issue_refund", &record.HookCall{Phase: "close"}),
					toolSpan("a2", "get_ledger", &record.HookCall{Phase: "collect"})}})
				return o
			},
			calls: []string{"issue_refund from the agent's trace, under close"}, whole: true, turn1: true},
		{name: "the trace alone, incomplete, is a floor",
			obs: func() *observe.Observations {
				o := attempt(nil, []map[string]any{reply()})
				o.Trace(record.Trace{Incomplete: "execute turn 1 try 2 exported no span", Spans: []record.Span{toolSpan("a1", "lookup", try(1, 1))}})
				return o
			},
			calls: []string{"lookup from the agent's trace, turn 1"}, whole: false, turn1: false},
		{name: "a try that printed no calls leaves the turn a floor",
			obs: func() *observe.Observations {
				return attempt(nil, []map[string]any{{"retry_after_ms": int64(5)}, reply("calls", calls(call("lookup")))})
			},
			calls: []string{"lookup from execute's report, turn 1 try 2"}, whole: false, turn1: false},
		{name: "no source of calls",
			obs:   func() *observe.Observations { return attempt(nil, []map[string]any{reply()}) },
			calls: []string{}, whole: false, turn1: false},
		{name: "a turn's usage is its tries' sum",
			obs: func() *observe.Observations {
				return attempt(nil, []map[string]any{{"retry_after_ms": int64(5), "calls": []any{}, "usage": usage(3, 0)}, reply("calls", []any{}, "usage", usage(10, 5))})
			},
			calls: []string{}, whole: true, turn1: true, usage: "13 in / 5 out"},
		{name: "a try that left usage out leaves the turn's unknown",
			obs: func() *observe.Observations {
				return attempt(nil, []map[string]any{{"retry_after_ms": int64(5), "calls": []any{}}, reply("calls", []any{}, "usage", usage(10, 5))})
			},
			calls: []string{}, whole: true, turn1: true, usage: ""},
		{name: "then a whole trace's model spans count the turn",
			obs: func() *observe.Observations {
				o := attempt(nil, []map[string]any{{"retry_after_ms": int64(5)}, reply("calls", []any{}, "usage", usage(10, 5))})
				o.Trace(record.Trace{Spans: []record.Span{modelSpan("m1", *try(1, 1), 2, 0), modelSpan("m2", *try(1, 2), 10, 5)}})
				return o
			},
			calls: []string{}, whole: true, turn1: true, usage: "12 in / 5 out"},
		{name: "collect's count is the session's total",
			obs: func() *observe.Observations {
				return attempt(map[string]any{"usage": usage(100, 20)}, []map[string]any{reply("calls", []any{}, "usage", usage(10, 5))})
			},
			calls: []string{}, whole: true, turn1: true, usage: "100 in / 20 out"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := tc.obs()
			got := obs.Calls()
			assert.Equal(t, tc.calls, shown(got.Value))
			assert.Equal(t, tc.whole, got.Complete, got.Why)
			one, _ := obs.OnlyTurn(1)
			assert.Equal(t, tc.turn1, one.Calls().Complete, one.Calls().Why)
			u := obs.Usage()
			text := ""
			if u.Observed {
				text = fmt.Sprintf("%s in / %s out", record.Count(u.Value.Input), record.Count(u.Value.Output))
			}
			assert.Equal(t, tc.usage, text, u.Why)
		})
	}
}

// What no source made up for is listed as lost, try by try, for the verdict's record.
func TestLostNamesTheTriesThatLeftSomethingOut(t *testing.T) {
	obs := attempt(nil, []map[string]any{{"retry_after_ms": int64(5)}, reply("calls", []any{}, "usage", usage(10, 5))})
	assert.Equal(t, []string{
		`calls: turn 1 try 1 (asked to wait) reported no "calls", so calls it may have made are not in the record`,
		"usage: turn 1 try 1 reported no usage, so tokens it may have used are not counted",
	}, obs.Lost())
	obs.Trace(record.Trace{Spans: []record.Span{modelSpan("m1", *try(1, 1), 2, 0), modelSpan("m2", *try(1, 2), 10, 5)}})
	assert.Empty(t, obs.Lost(), "a whole trace makes up for both")
}
