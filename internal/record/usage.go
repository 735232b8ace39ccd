package record

import "fmt"

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
	// From says where the call was observed: "trace" for a span; "" for a hook's calls.
	From string `json:"from,omitempty"`
	// OutcomeKnown says its source reported how the call ended (a hook's "error" or
	// "output", a tool span's status or result): without it, Error "" is not success.
	OutcomeKnown bool `json:"-"`
}
