package observe

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

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

func attr(sp record.Span, names []string) (any, bool) {
	for _, n := range names {
		if v, ok := sp.Attributes[n]; ok {
			return v, true
		}
	}
	return nil, false
}

func attrString(sp record.Span, names []string) string {
	v, _ := attr(sp, names)
	s, _ := v.(string)
	return s
}

// tool is the call a tool span stands for; ok is false for any other span. A tool span is
// one whose operation is execute_tool, or, before the operation was named, one with a
// tool name. argsOK is false when the span carries arguments that are not a JSON object.
func tool(sp record.Span) (c record.Call, ok, argsOK bool) {
	op := attrString(sp, attrOperation)
	name := attrString(sp, attrToolName)
	if op != "execute_tool" && !(op == "" && name != "") {
		return record.Call{}, false, false
	}
	if name == "" {
		name = strings.TrimSpace(strings.TrimPrefix(sp.Name, "execute_tool"))
	}
	c = record.Call{ID: attrString(sp, attrToolID), Name: name, From: "trace"}
	argsOK = true
	if args, ok := attr(sp, attrToolArgs); ok {
		a, isText := args.(string)
		argsOK = isText && json.Unmarshal([]byte(a), &c.Arguments) == nil && c.Arguments != nil
		if !argsOK {
			c.Arguments = nil
		}
	}
	if out, ok := attr(sp, attrToolOut); ok {
		c.Output, c.OutcomeKnown = out, true
		if s, isText := out.(string); isText {
			var parsed any
			if json.Unmarshal([]byte(s), &parsed) == nil {
				c.Output = parsed
			}
		}
	}
	switch sp.Status {
	case "error":
		c.Error, c.OutcomeKnown = sp.StatusMessage, true
		if c.Error == "" {
			c.Error = "the tool span's status is error"
		}
	case "ok":
		c.OutcomeKnown = true
	}
	if e := attrString(sp, []string{"error.type"}); e != "" && c.Error == "" {
		c.Error, c.OutcomeKnown = e, true
	}
	return c, true, argsOK
}

// usage is the token counts a model span reports; model is false for any other span. A
// model span that leaves a count out leaves it nil: not reported is not zero.
func usage(sp record.Span) (u *record.Usage, model bool) {
	if !modelOperations[attrString(sp, attrOperation)] {
		return nil, false
	}
	u = &record.Usage{}
	if v, ok := attr(sp, attrInputTok); ok {
		u.Input = count(v)
	}
	if v, ok := attr(sp, attrOutputTok); ok {
		u.Output = count(v)
	}
	return u, true
}

// Trace adds what the attempt's recorded trace shows, turn by turn: a turn whose hook
// reported no calls takes the trace's, and a turn whose hook did report calls takes the
// trace's it did not (the same call by id, else by name and arguments, counted once); a
// turn without reported usage takes its model spans' when the trace is complete. What the
// trace lost (refused, dropped, clipped or unparented spans, a turn with no span) is lost
// of the calls and emitted text it would have shown.
func (o *Observations) Trace(t record.Trace) {
	o.traced = true
	turnOf := turnsOf(t)
	calls := make([][]record.Call, len(o.turns))
	use := make([]*record.Usage, len(o.turns))
	models := make([]int, len(o.turns))
	for _, sp := range t.Spans {
		n, ok := turnOf[sp.SpanID]
		if !ok && len(o.turns) == 1 {
			n = 1 // a span whose ancestry is broken: in a one-turn attempt, it is that turn's
		}
		c, isTool, argsOK := tool(sp)
		if isTool && !argsOK {
			o.lose(Calls, 0, fmt.Sprintf("tool span %s carries arguments that are not a JSON object, so what it was called with is not known", sp.Name))
		}
		if len(sp.Clipped) > 0 || sp.DroppedAttributes > 0 {
			why := fmt.Sprintf("span %s had %s at the receiver's bounds", sp.Name, cutWhat(sp))
			o.lose(Emitted, 0, why)
			if isTool {
				o.lose(Calls, 0, why)
			}
		}
		if n < 1 || n > len(o.turns) {
			continue
		}
		if isTool {
			calls[n-1] = append(calls[n-1], c)
		}
		if u, model := usage(sp); model {
			models[n-1]++
			if models[n-1] == 1 {
				use[n-1] = u
			} else {
				use[n-1] = addUsage(use[n-1], u, false)
			}
		}
	}
	o.emitted = append(o.emitted, emitted(t)...)
	if t.Duplicates > 0 {
		o.notes = append(o.notes, fmt.Sprintf("trace: %d span(s) arrived more than once and were kept once", t.Duplicates))
	}
	why := "the trace is incomplete: " + t.Incomplete
	if t.Incomplete != "" {
		o.lose(Emitted, 0, why)
	}
	for i := range o.turns {
		turn := &o.turns[i]
		if turn.CallsObserved {
			// The hook's report of the turn's calls is whole on its own; the trace may add
			// calls it left out.
			turn.Calls = merge(turn.Calls, calls[i])
		} else {
			turn.Calls, turn.CallsObserved = calls[i], true
			if turn.Calls == nil {
				turn.Calls = []record.Call{}
			}
			if t.Incomplete != "" {
				o.lose(Calls, 0, why) // the trace is the turn's only report of its calls
			}
		}
		if turn.Usage == nil && t.Incomplete == "" && models[i] > 0 {
			turn.Usage = use[i]
		}
	}
}

// cutWhat says what of a span's attributes the receiver cut.
func cutWhat(sp record.Span) string {
	var parts []string
	if len(sp.Clipped) > 0 {
		parts = append(parts, "attribute(s) "+strings.Join(sp.Clipped, ", ")+" clipped")
	}
	if sp.DroppedAttributes > 0 {
		parts = append(parts, fmt.Sprintf("%d attribute(s) dropped", sp.DroppedAttributes))
	}
	return strings.Join(parts, " and ")
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
func turnsOf(t record.Trace) map[string]int {
	byID := map[string]record.Span{}
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
				out[i].OutcomeKnown = out[i].OutcomeKnown || tc.OutcomeKnown
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

// emitted is every span attribute of the trace but those that hold what the agent was
// given: its model's output, the URL and body of a request it made, a message it
// published. A red-team canary that appears there has left the agent.
func emitted(t record.Trace) []Where {
	var out []Where
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
			out = append(out, Where{Where: fmt.Sprintf("span %s attribute %s", sp.Name, k), Text: s})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Where < out[j].Where })
	return out
}

// SpanCall is the tool call a span stands for, by the GenAI conventions; ok is false for
// any other span. Reports show it beside the span.
func SpanCall(sp record.Span) (c record.Call, ok bool) {
	c, ok, _ = tool(sp)
	return c, ok
}
