package otlp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
)

// The OpenTelemetry GenAI semantic conventions' attributes this mapping reads, the
// current name first and the older names still emitted after it.
var (
	attrOperation = []string{"gen_ai.operation.name"}
	attrToolName  = []string{"gen_ai.tool.name"}
	attrToolID    = []string{"gen_ai.tool.call.id"}
	attrToolArgs  = []string{"gen_ai.tool.call.arguments", "gen_ai.tool.arguments"}
	attrToolOut   = []string{"gen_ai.tool.call.result", "gen_ai.tool.result"}
	attrInputTok  = []string{"gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"}
	attrOutputTok = []string{"gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"}
)

// modelOperations are the operations whose spans carry a model call's usage; an
// invoke_agent span's usage (a total over its model calls, where given) is not added again.
var modelOperations = map[string]bool{"chat": true, "text_completion": true, "generate_content": true}

func attr(sp Span, names []string) (any, bool) {
	for _, n := range names {
		if v, ok := sp.Attributes[n]; ok {
			return v, true
		}
	}
	return nil, false
}

func attrString(sp Span, names []string) string {
	v, _ := attr(sp, names)
	s, _ := v.(string)
	return s
}

// Tool is the call a tool span stands for; ok is false for any other span. A tool span is
// one whose operation is execute_tool, or, before the operation was named, one with a
// tool name.
func (sp Span) Tool() (record.Call, bool) {
	op := attrString(sp, attrOperation)
	name := attrString(sp, attrToolName)
	if op != "execute_tool" && !(op == "" && name != "") {
		return record.Call{}, false
	}
	if name == "" {
		name = strings.TrimSpace(strings.TrimPrefix(sp.Name, "execute_tool"))
	}
	c := record.Call{ID: attrString(sp, attrToolID), Name: name, From: "trace"}
	if args, ok := attr(sp, attrToolArgs); ok {
		switch a := args.(type) {
		case string:
			_ = json.Unmarshal([]byte(a), &c.Arguments) // arguments not captured as JSON are left out
		}
	}
	if out, ok := attr(sp, attrToolOut); ok {
		c.Output = out
		if s, isText := out.(string); isText {
			var parsed any
			if json.Unmarshal([]byte(s), &parsed) == nil {
				c.Output = parsed
			}
		}
	}
	if sp.Status == "error" {
		c.Error = sp.StatusMessage
		if c.Error == "" {
			c.Error = "the tool span's status is error"
		}
	}
	return c, true
}

// usage is the token counts a model span reports, nil for any other span.
func (sp Span) usage() *record.Usage {
	if !modelOperations[attrString(sp, attrOperation)] {
		return nil
	}
	var u record.Usage
	if v, ok := attr(sp, attrInputTok); ok {
		u.Input = count(v)
	}
	if v, ok := attr(sp, attrOutputTok); ok {
		u.Output = count(v)
	}
	if u.Input == nil && u.Output == nil {
		return nil
	}
	return &u
}

// count is a token count as a span (int64) or traces.json (a JSON number) holds it: a
// whole number, not negative; nil for anything else.
func count(v any) *int64 {
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case float64:
		if x != float64(int64(x)) {
			return nil
		}
		n = int64(x)
	default:
		return nil
	}
	if n < 0 {
		return nil
	}
	return &n
}

// turns files each span under the execute turn (1-based) whose TRACEPARENT its root
// carried; 0 for a span under another hook call; a span whose ancestry is broken (a
// parent that never arrived) is not in it.
func (t Trace) turns() map[string]int {
	byID := map[string]Span{}
	for _, sp := range t.Spans {
		byID[sp.SpanID] = sp
	}
	out := map[string]int{}
	for _, sp := range t.Spans {
		cur, seen := sp, 0
		for cur.Under == "" && cur.ParentSpanID != "" && seen < len(t.Spans) {
			next, ok := byID[cur.ParentSpanID]
			if !ok {
				break
			}
			cur, seen = next, seen+1
		}
		var n int
		if _, err := fmt.Sscanf(cur.Under, "execute turn %d", &n); err == nil {
			out[sp.SpanID] = n
		} else if cur.Under != "" {
			out[sp.SpanID] = 0 // under open, close or collect: no turn's
		}
	}
	return out
}

// Apply adds what the trace shows to ev, turn by turn: a turn whose hook reported no
// calls takes the trace's (a lower bound when the trace is incomplete, which ev then
// says), and a turn whose hook did report calls takes the trace's it did not (the same
// call by id, else by name and arguments, counted once); a turn without reported usage
// takes its model spans' when the trace is complete (an incomplete one would undercount).
func (t Trace) Apply(ev *check.Evidence) {
	turnOf := t.turns()
	calls := make([][]record.Call, len(ev.Turns))
	usage := make([]*record.Usage, len(ev.Turns))
	for _, sp := range t.Spans {
		n, ok := turnOf[sp.SpanID]
		if !ok && len(ev.Turns) == 1 {
			n = 1 // a span whose ancestry is broken: in a one-turn attempt, it is that turn's
		}
		if n < 1 || n > len(ev.Turns) {
			continue
		}
		if c, ok := sp.Tool(); ok {
			calls[n-1] = append(calls[n-1], c)
		}
		if u := sp.usage(); u != nil {
			usage[n-1] = addUsage(usage[n-1], u)
		}
	}
	ev.Emitted = append(ev.Emitted, t.Emitted()...)
	incomplete := t.Incomplete != ""
	for i := range ev.Turns {
		turn := &ev.Turns[i]
		if turn.CallsObserved {
			turn.Calls = merge(turn.Calls, calls[i])
		} else {
			turn.Calls, turn.CallsObserved = calls[i], true
			if turn.Calls == nil {
				turn.Calls = []record.Call{}
			}
			if incomplete {
				ev.CallsIncomplete = "the trace is incomplete: " + t.Incomplete
			}
		}
		if turn.Usage == nil && !incomplete {
			turn.Usage = usage[i]
		}
	}
}

func addUsage(a, b *record.Usage) *record.Usage {
	if a == nil {
		return b
	}
	sum := func(x, y *int64) *int64 {
		if x == nil || y == nil {
			return nil // one model call did not say: the total is not known
		}
		n := *x + *y
		return &n
	}
	return &record.Usage{Input: sum(a.Input, b.Input), Output: sum(a.Output, b.Output)}
}

// merge adds to a hook's calls the trace's calls it does not hold: the same call by id,
// else by name and arguments, each hook call matching one span at most.
func merge(hook, trace []record.Call) []record.Call {
	used := make([]bool, len(hook))
	out := append([]record.Call(nil), hook...)
	for _, tc := range trace {
		found := false
		for i, hc := range hook {
			if used[i] {
				continue
			}
			same := hc.ID != "" && hc.ID == tc.ID
			if !same && (hc.ID == "" || tc.ID == "") {
				same = hc.Name == tc.Name && sameJSON(hc.Arguments, tc.Arguments)
			}
			if same {
				used[i], found = true, true
				if out[i].Error == "" {
					out[i].Error = tc.Error
				}
				break
			}
		}
		if !found {
			out = append(out, tc)
		}
	}
	return out
}

func sameJSON(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// given are the attributes that hold what the agent was given, not what it sent out: a
// tool's result, the model's input and instructions, the tools it was offered. The call
// arguments are left out too: they are matched as calls.
var given = map[string]bool{"gen_ai.tool.call.result": true, "gen_ai.tool.result": true, "gen_ai.input.messages": true,
	"gen_ai.prompt": true, "gen_ai.system_instructions": true, "gen_ai.tool.definitions": true,
	"gen_ai.tool.call.arguments": true, "gen_ai.tool.arguments": true}

// Emitted is every span attribute of the trace but those that hold what the agent was
// given: its model's output, the URL and body of a request it made, a message it
// published. A red-team canary that appears there has left the agent.
func (t Trace) Emitted() []check.Emitted {
	var out []check.Emitted
	for _, sp := range t.Spans {
		for k, v := range sp.Attributes {
			if given[k] {
				continue
			}
			s, ok := v.(string)
			if !ok {
				b, err := json.Marshal(v)
				if err != nil {
					continue
				}
				s = string(b)
			}
			out = append(out, check.Emitted{Where: fmt.Sprintf("span %s attribute %s", sp.Name, k), Text: s})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Where < out[j].Where })
	return out
}
