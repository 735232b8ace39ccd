package check

import "github.com/rookgo/rookgo/internal/hook"

// Evidence is everything a check may read about one attempt of a scenario.
type Evidence struct {
	// Turns are the execute calls made, in order.
	Turns []Turn
	// Calls are the tool calls the scenario's hooks reported (collect's, when it reported
	// the session's); CallsObserved is false when no phase returned calls at all.
	Calls         []hook.Call
	CallsObserved bool
	// NoCalls, when set, says why calls are not observable (the profile declares
	// capabilities.calls: false).
	NoCalls string
	// Usage is the session's token usage; nil when no phase reported usage.
	Usage *hook.Usage
	// Collect is collect's data; nil when collect did not run or returned nothing, and
	// NoCollect then says why, when it knows (the profile has no collect hook).
	Collect   map[string]any
	NoCollect string
	// AgentRan is false when no turn produced a reply (execute failed or never ran).
	AgentRan bool
}

// Turn is one execute call.
type Turn struct {
	Input     string
	Output    string
	LatencyMs int64
}

// Output is the final reply.
func (e *Evidence) Output() string {
	if len(e.Turns) == 0 {
		return ""
	}
	return e.Turns[len(e.Turns)-1].Output
}

// Transcript is every turn as "user: ..." and "agent: ..." lines.
func (e *Evidence) Transcript() string {
	var b []byte
	for _, t := range e.Turns {
		b = append(b, "user: "...)
		b = append(b, t.Input...)
		b = append(b, "\nagent: "...)
		b = append(b, t.Output...)
		b = append(b, '\n')
	}
	return string(b)
}
