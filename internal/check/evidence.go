package check

import (
	"fmt"
	"strings"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/record"
)

// Evidence is everything a check may read about one attempt of a scenario: a list of
// per-turn observations, each saying what its hook reported and what it did not, and
// collect's report of the session. Checks ask it questions (ObservedCalls, TokenUsage)
// rather than reading fields that could stand for "not reported" as zero or empty.
type Evidence struct {
	// Turns are the execute calls that replied, in order.
	Turns []Turn
	// Session is what collect reported of the whole session's calls and usage; nil when
	// collect reported neither.
	Session *Session
	// NoCalls, when set, says why calls are not observable at all (the profile declares
	// capabilities.calls: false): nothing a hook printed counts as calls then.
	NoCalls string
	// Collect is collect's data; nil when collect did not run or returned nothing, and
	// NoCollect then says why, when it knows (the profile has no collect hook).
	Collect   map[string]any
	NoCollect string
	// AgentRan is false when no turn produced a reply (execute failed or never ran).
	AgentRan bool
	// Emitted is what else the agent sent out, outside its replies and calls' arguments:
	// its trace's span attributes but for what it was given (tool results, model input).
	// Red-team canaries and signals are matched over it too.
	Emitted []Emitted
	// Probes are the answers of the MCP servers mcp_probe criteria named, asked after
	// collect; NoProbes says why there are none, when it knows.
	Probes   []record.Probe
	NoProbes string
	// CallsIncomplete, when set, says why the observed calls are only a lower bound: some
	// came from a trace that is not shown complete. A call seen is seen; that one was not
	// made, or made only so often, is then not shown.
	CallsIncomplete string

	// turn is the scenario's turn number of Turns[0] less one, and scoped is set, in
	// OnlyTurn's view of one turn: it says "turn 2", not "turn 1", of it.
	turn   int
	scoped bool
}

// OnlyTurn is the evidence of turn n alone (1-based), for a criterion about that turn: its
// reply, calls, usage and time, and nothing of collect's, which reports the whole
// session and cannot be put in a turn. why says, when there is none, that the turn never
// replied.
func (e *Evidence) OnlyTurn(n int) (view *Evidence, why string) {
	if n < 1 || n > len(e.Turns) {
		return nil, fmt.Sprintf("turn %d never replied (%d turn(s) did), so there is nothing of it to judge", n, len(e.Turns))
	}
	return &Evidence{Turns: e.Turns[n-1 : n], NoCalls: e.NoCalls, CallsIncomplete: e.CallsIncomplete, AgentRan: true, turn: n - 1, scoped: true,
		NoCollect: fmt.Sprintf("collect reports the whole session, not turn %d", n)}, ""
}

// Emitted is one text the agent sent out, and where it was seen ("span fetch attribute
// url.full").
type Emitted struct {
	Where, Text string
}

// Turn is one execute call and what its hook reported.
type Turn struct {
	Input  string
	Output string
	// LatencyMs is the turn's time: the agent's own when the hook reported latency_ms
	// (AgentLatency), else the hook process's, HookMs, which includes starting the hook.
	LatencyMs    int64
	AgentLatency bool
	HookMs       int64
	// Calls are the calls this turn reported; CallsObserved says it reported a calls list
	// at all ([] is observed none, an absent key is not observed).
	Calls         []record.Call
	CallsObserved bool
	// Usage is this turn's reported token counts; nil, or a nil count, is not reported.
	Usage *record.Usage
	// Conversation is the conversation id this turn reported; "" is not reported.
	Conversation string
}

// Session is collect's report of the whole session: its calls and usage replace, never
// add to, the turns' (Rook's hooks report the session again from collect).
type Session struct {
	Calls         []record.Call
	CallsObserved bool
	Usage         *record.Usage
}

// AddTurn appends one execute turn's observations.
// hookMs is the hook process's time; the agent's own, when the hook reported it, is the
// turn's latency.
func (e *Evidence) AddTurn(input string, hookMs int64, out *hook.Output) {
	t := Turn{Input: input, Output: out.Reply, LatencyMs: hookMs, HookMs: hookMs,
		Calls: out.Calls, CallsObserved: out.CallsObserved, Usage: out.Usage, Conversation: out.Conversation}
	if out.LatencyMs != nil {
		t.LatencyMs, t.AgentLatency = *out.LatencyMs, true
	}
	e.Turns = append(e.Turns, t)
	e.AgentRan = true
}

// SetSession applies collect's report: what it reported of calls and usage.
func (e *Evidence) SetSession(out *hook.Output) {
	if !out.CallsObserved && out.Usage == nil {
		return
	}
	e.Session = &Session{Calls: out.Calls, CallsObserved: out.CallsObserved, Usage: out.Usage}
}

// ObservedCalls returns the scenario's calls when they were observed: collect's report of
// the session, or else every turn's calls when every turn reported a calls list. ok is
// false when they were not, and why then says which turn did not report them.
func (e *Evidence) ObservedCalls() (calls []record.Call, ok bool, why string) {
	if e.NoCalls != "" {
		return nil, false, e.NoCalls
	}
	if e.Session != nil && e.Session.CallsObserved {
		return e.Session.Calls, true, ""
	}
	var missing []string
	for i, t := range e.Turns {
		if !t.CallsObserved {
			missing = append(missing, fmt.Sprint(e.turn+i+1))
			continue
		}
		calls = append(calls, t.Calls...)
	}
	if len(missing) > 0 && e.scoped {
		return nil, false, fmt.Sprintf("turn %s reported no \"calls\"; collect's calls are the whole session's and cannot be put in a turn", missing[0])
	}
	switch {
	case len(missing) == len(e.Turns): // no turn at all, too
		return nil, false, "no phase reported calls, so calls were not observable (return \"calls\" from execute or collect)"
	case len(missing) > 0:
		return nil, false, fmt.Sprintf("turn %s reported no \"calls\" (and collect reported no session calls), so calls in that turn were not observable",
			strings.Join(missing, ", "))
	}
	if calls == nil {
		calls = []record.Call{}
	}
	return calls, true, ""
}

// TokenUsage returns the session's token counts, each observed or nil: collect's count
// when it reported one, else the sum over the turns when every turn reported it. why
// says, for each count that is nil, which turn (or that no phase) reported it.
func (e *Evidence) TokenUsage() (u record.Usage, why map[string]string) {
	why = map[string]string{}
	field := func(name string, get func(*record.Usage) *int64) *int64 {
		if e.Session != nil && e.Session.Usage != nil {
			if n := get(e.Session.Usage); n != nil {
				return n
			}
		}
		var sum int64
		var missing []string
		for i, t := range e.Turns {
			var n *int64
			if t.Usage != nil {
				n = get(t.Usage)
			}
			if n == nil {
				missing = append(missing, fmt.Sprint(e.turn+i+1))
				continue
			}
			sum += *n
		}
		switch {
		case len(e.Turns) == 0 || len(missing) == len(e.Turns):
			why[name] = fmt.Sprintf("no phase reported usage.%s", name)
			return nil
		case len(missing) > 0:
			why[name] = fmt.Sprintf("turn %s reported no usage.%s (and collect reported none for the session)", strings.Join(missing, ", "), name)
			return nil
		}
		return &sum
	}
	u.Input = field("input", func(u *record.Usage) *int64 { return u.Input })
	u.Output = field("output", func(u *record.Usage) *int64 { return u.Output })
	return u, why
}

// Usage is the session's usage as a record shows it: nil when no count was observed.
func (e *Evidence) Usage() *record.Usage {
	u, _ := e.TokenUsage()
	if u.Input == nil && u.Output == nil {
		return nil
	}
	return &u
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
