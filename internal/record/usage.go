package record

import (
	"fmt"
	"slices"
)

// Usage is a token count. A count the hook did not report is nil: not observed, never
// zero.
type Usage struct {
	Input  *int64 `json:"input_tokens,omitempty" yaml:"input_tokens,omitempty"`
	Output *int64 `json:"output_tokens,omitempty" yaml:"output_tokens,omitempty"`
}

// Tokens is a usage of both counts, as a test or a summary writes it.
func Tokens(input, output int64) *Usage { return &Usage{Input: &input, Output: &output} }

// String says both counts ("input 5, output not reported").
func (u *Usage) String() string {
	if u == nil {
		return "not reported"
	}
	return fmt.Sprintf("input %s, output %s", Count(u.Input), Count(u.Output))
}

// Count is n as text, or "not reported" when it is nil.
func Count(n *int64) string {
	if n == nil {
		return "not reported"
	}
	return fmt.Sprint(*n)
}

// Call is one observed tool call.
type Call struct {
	// ID is the tool call's id when its source gave one (gen_ai.tool.call.id): a call
	// seen in a hook's calls and in a trace is one call.
	ID        string         `json:"id,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Output    any            `json:"output,omitempty"`
	// Error says the call failed, and how, when its source said so (a tool span's error
	// status, a hook's "error"); "" when it did not say.
	Error string `json:"error,omitempty"`
	// From says where the call was observed: "trace" for a span, "collect" for collect's
	// report of the session; "" for an execute hook's calls.
	From string `json:"from,omitempty"`
	// Turn and Try are the execute turn and try it was seen in (0 when its source reports
	// the whole session, or a span's ancestry is broken); Also names the other sources
	// that saw the same call. Package observe sets them; Source says them.
	Turn  int      `json:"-"`
	Try   int      `json:"-"`
	Also  []string `json:"-"`
	Phase string   `json:"-"` // the hook call's phase, when a span was under open or close
	// OutcomeKnown says its source reported how the call ended (a hook's "error" or
	// "output", a tool span's status or result): without it, Error "" is not success.
	OutcomeKnown bool `json:"-"`
}

// Source says where the call was seen, as evidence lines show it: "from the agent's
// trace, turn 1", "from execute's report, turn 2 try 1, and collect's".
func (c Call) Source() string {
	s := "from " + sourceName(c.From)
	switch {
	case c.Phase != "" && c.Phase != "execute":
		s += ", under " + c.Phase
	case c.Turn > 0 && c.Try > 1:
		s += fmt.Sprintf(", turn %d try %d", c.Turn, c.Try)
	case c.Turn > 0:
		s += fmt.Sprintf(", turn %d", c.Turn)
	}
	for _, a := range c.Also {
		s += ", and " + sourceName(a)
	}
	return s
}

// SeenBy reports whether the source from ("", "trace", "collect") saw the call.
func (c Call) SeenBy(from string) bool { return c.From == from || slices.Contains(c.Also, from) }

func sourceName(from string) string {
	switch from {
	case "trace":
		return "the agent's trace"
	case "collect":
		return "collect's report"
	}
	return "execute's report"
}
