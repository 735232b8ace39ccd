package record

import (
	"fmt"
	"strings"
	"time"
)

// HookCall names one hook call of an attempt: its phase and, for execute, its turn and
// try (1-based; a turn whose agent asked to wait runs again as its next try). The engine
// gives each call a TRACEPARENT of its own, the receiver files each span under the call it
// descends from, and observe reads which turn and try a span was of from this value; its
// string is for display only.
type HookCall struct {
	Phase string `json:"phase"`
	Turn  int    `json:"turn,omitempty"`
	Try   int    `json:"try,omitempty"`
}

// String is the call as people read it: "open", "execute turn 2", "execute turn 2 try 3".
func (c HookCall) String() string {
	switch {
	case c.Turn == 0:
		return c.Phase
	case c.Try > 1:
		return fmt.Sprintf("%s turn %d try %d", c.Phase, c.Turn, c.Try)
	}
	return fmt.Sprintf("%s turn %d", c.Phase, c.Turn)
}

// Span is one span of an attempt's trace, as evidence/traces.json keeps it.
type Span struct {
	SpanID        string         `json:"span_id"`
	ParentSpanID  string         `json:"parent_span_id,omitempty"`
	Name          string         `json:"name"`
	Service       string         `json:"service,omitempty"`
	Start         time.Time      `json:"start"`
	End           time.Time      `json:"end"`
	Status        string         `json:"status"` // ok, error or unset
	StatusMessage string         `json:"status_message,omitempty"`
	Attributes    map[string]any `json:"attributes,omitempty"`
	// Hook is the hook call whose TRACEPARENT the span descends from, when its parent is
	// that call's span; Under is the same call as people read it ("execute turn 2").
	Hook  *HookCall `json:"hook,omitempty"`
	Under string    `json:"under,omitempty"`
	// Propagated is set when the span was taken by the token in its tracestate rather than
	// the export request's header: a process without the hook's environment sent it (a
	// service the agent called, which the trace context reached over the wire).
	Propagated bool `json:"propagated,omitempty"`
	// Late is set when the span arrived after the attempt was first judged: the attempt
	// was decided again with it.
	Late bool `json:"late,omitempty"`
	// Clipped names the attributes whose text was cut at the receiver's bound, and
	// DroppedAttributes counts those left out past it: what they held is not in the record.
	Clipped           []string `json:"clipped,omitempty"`
	DroppedAttributes int      `json:"dropped_attributes,omitempty"`
}

// Trace is an attempt's trace as evidence/traces.json keeps it.
type Trace struct {
	TraceID string `json:"trace_id"`
	Spans   []Span `json:"spans"`
	// Dropped counts the spans over the bounds (spans and bytes an attempt): a trace that
	// dropped any is not complete.
	Dropped int `json:"dropped"`
	// Duplicates counts the spans that arrived again (a retrying exporter): each span is
	// kept once, by its trace and span id.
	Duplicates int `json:"duplicates,omitempty"`
	// Refused counts the export requests the receiver refused while the attempt was open
	// (too large, undecodable, over the bounds): their spans, whichever attempt they were
	// of, are not in any record.
	Refused int `json:"refused,omitempty"`
	// Unsigned counts the spans that named the attempt's trace with no hook call's token
	// (in the export request's header or the span's tracestate): they are not its
	// evidence, and since they may be the agent's own, the trace is not complete.
	// CrossTalk counts those that named it with another attempt's token, Foreign those
	// exported with one of its own tokens that named another trace: kept by neither.
	Unsigned  int `json:"unsigned,omitempty"`
	CrossTalk int `json:"cross_talk,omitempty"`
	Foreign   int `json:"foreign,omitempty"`
	// Harness lists the harness's own spans (the hook calls), which are parents and never
	// arrive: "span id = execute turn 1".
	Harness []string `json:"harness"`
	// Incomplete says why the trace cannot show that something did not happen; "" when it
	// is complete.
	Incomplete string `json:"incomplete,omitempty"`
}

// TraceWait is how long an attempt's trace waits for its spans before it is settled.
type TraceWait struct {
	// Quiet is how long no span may arrive while the hooks' tree is not yet whole.
	Quiet time.Duration
	// Services is how long the trace stays open for spans from processes that are not the
	// hooks' (a service on a fixed address, exporting on its own schedule), counted from
	// the last span, and cut short once such a process has sent spans and the tree is
	// whole; 0 when no such process can export to the receiver.
	Services time.Duration
	// Most bounds the whole wait.
	Most time.Duration
}

// LateSpans are the spans that arrived for an attempt after its trace was settled and its
// evidence recorded. They join its traces.json (each marked late, the trace then
// incomplete), and an attempt judged in this process is decided again with them: Was and
// Now are the scenario's status before and after, and Changed names the rows they changed.
// Names are the first few spans' names.
type LateSpans struct {
	ScenarioID string   `json:"scenario_id" yaml:"scenario_id"`
	Attempt    int      `json:"attempt" yaml:"attempt"`
	Spans      int      `json:"spans" yaml:"spans"`
	Names      []string `json:"names" yaml:"names"`
	// Tools are the tool calls among them, by name.
	Tools []string `json:"tools,omitempty" yaml:"tools,omitempty"`
	// Dropped counts the late spans over the trace's bounds, not kept.
	Dropped int      `json:"dropped,omitempty" yaml:"dropped,omitempty"`
	Was     Status   `json:"was,omitempty" yaml:"was,omitempty"`
	Now     Status   `json:"now,omitempty" yaml:"now,omitempty"`
	Changed []string `json:"changed,omitempty" yaml:"changed,omitempty"`
	// NotDecided says why the attempt was not decided again (it was not judged in this
	// process, or its records could not be read): the spans are in its trace for the judge.
	NotDecided string `json:"not_decided,omitempty" yaml:"not_decided,omitempty"`
	// Kept are the late spans themselves, for the attempt's traces.json.
	Kept []Span `json:"-" yaml:"-"`
}

// The names a hook call's trace token travels under (package otlp says how it is used):
// the export request header the OpenTelemetry SDKs send from OTEL_EXPORTER_OTLP_HEADERS,
// and the tracestate list member W3C propagation carries to the services an agent calls.
const (
	TraceTokenHeader = "X-Rook-Token"
	TraceStateKey    = "rook"
)

// ToolName is the tool a span stands for by the OpenTelemetry GenAI conventions: a span
// whose operation (gen_ai.operation.name) is execute_tool, or, before the operation was
// named, one with a tool name (gen_ai.tool.name); the name is the attribute's, else what
// follows "execute_tool" in the span's name. ok is false for any other span.
func (sp Span) ToolName() (name string, ok bool) {
	op, _ := sp.Attributes["gen_ai.operation.name"].(string)
	name, _ = sp.Attributes["gen_ai.tool.name"].(string)
	if op != "execute_tool" && (op != "" || name == "") {
		return "", false
	}
	if name == "" {
		name = strings.TrimSpace(strings.TrimPrefix(sp.Name, "execute_tool"))
	}
	return name, true
}
