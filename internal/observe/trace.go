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
	name, ok := sp.ToolName()
	if !ok {
		return record.Call{}, false, false
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

// Trace adds what the attempt's recorded trace shows, turn by turn, by the package's
// merge policy: each turn's tool spans (of any of its tries) join its calls, counted once
// with what its hook reported; a turn whose tries did not all report usage takes its model
// spans' when the trace is whole. A tool span whose ancestry is broken is the session's,
// as is one under open or close or a turn that never replied; one under collect is not
// the agent's act but the harness's reading back, and is left out. What the trace lost
// (refused, dropped, unsigned, clipped or unparented spans, a try with no span) is lost of
// the calls and emitted text it would have shown.
func (o *Observations) Trace(t record.Trace) {
	o.traced, o.traceWhy = true, t.Incomplete
	index := map[int]int{}
	for i, turn := range o.turns {
		index[turn.N] = i
	}
	calls := make([][]record.Call, len(o.turns))
	use := make([]record.Usage, len(o.turns))
	models := make([]int, len(o.turns))
	byID := make(map[string]int, len(t.Spans))
	for i, sp := range t.Spans {
		byID[sp.SpanID] = i
	}
	for _, sp := range t.Spans {
		call, placed := hookOf(t, byID, sp)
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
		if placed && call.Phase == "collect" {
			continue // collect reads back what the agent did: the harness's, not the agent's act
		}
		i, inTurn := index[call.Turn]
		if isTool {
			c.Phase, c.Turn, c.Try = call.Phase, call.Turn, call.Try
			switch {
			case !placed:
				o.unplaced = append(o.unplaced, c)
			case call.Phase != "execute" || !inTurn:
				o.outside = append(o.outside, c) // under open or close, or a turn that never replied
			default:
				calls[i] = append(calls[i], c)
			}
		}
		if placed && call.Phase != "execute" {
			continue
		}
		if u, model := usage(sp); model && placed && inTurn {
			if models[i]++; models[i] == 1 {
				use[i] = *u
			} else {
				use[i] = sumUsage(use[i], *u)
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
		turn.calls = same(turn.calls, calls[i], "trace")
		whole := turn.usage.Input != nil && turn.usage.Output != nil
		if !whole && t.Incomplete == "" && models[i] > 0 {
			turn.usage = use[i]
		}
	}
}

// hookOf is the hook call a span descends from, by its ancestors up to the one whose
// parent is a hook call's span; placed is false when its ancestry is broken (a parent
// that never arrived) or leads to no hook call.
func hookOf(t record.Trace, byID map[string]int, sp record.Span) (call record.HookCall, placed bool) {
	cur := sp
	for range len(t.Spans) {
		if cur.Hook != nil {
			return *cur.Hook, true
		}
		i, ok := byID[cur.ParentSpanID]
		if cur.ParentSpanID == "" || !ok {
			break
		}
		cur = t.Spans[i]
	}
	return record.HookCall{}, false
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
