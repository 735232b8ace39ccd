// Package observe is the one place that turns what an attempt's sources reported (each
// try of each execute turn, collect, the evidence files, the agent's spans, the MCP
// probes) into what was observed of the agent, as one Observations value.
//
// Every source says what it lost: a field it did not report, a try it left out, a span
// that was refused, dropped, clipped or sent twice. The value answers per channel (the
// replies, calls, usage, emitted text, collect's data, the probes' state) whether it was
// observed, whether it is whole, and why not, so that whatever decides a criterion reads
// a missing or partial channel as Unable to Verify, never as zero, empty or Pass. Nothing
// else in the project reads a hook's output or a span to find out what the agent did.
package observe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
)

// Channel is one kind of thing observed of the agent.
type Channel int

// The channels.
const (
	// Replies are the agent's replies, turn by turn.
	Replies Channel = iota
	// Calls are the tool calls it made, from its hooks' calls or its trace.
	Calls
	// Usage is the tokens it used.
	Usage
	// Emitted is what else it sent out, seen in its trace (a request's URL, a message).
	Emitted
	// Collected is collect's data: state read from the system it acted on.
	Collected
	// Probed is the state MCP servers answered for after collect.
	Probed
)

var channelNames = [...]string{"replies", "calls", "usage", "emitted text", "collect data", "mcp probes"}

func (c Channel) String() string { return channelNames[c] }

// Coverage is how much of a channel was observed: Observed when a source reported it at
// all, Complete when nothing of it is known to be missing; Why says what is missing.
type Coverage struct {
	Observed, Complete bool
	Why                string
}

// Profile is what the profile says of its hooks' reports.
type Profile struct {
	ID string
	// Calls is capabilities.calls: false says no hook output is evidence of calls.
	Calls bool
	// NoCollect is set when the profile has no collect hook.
	NoCollect bool
}

// Turn is one execute turn as observed: what the user sent, what the agent replied, and
// what its tries reported.
type Turn struct {
	// N is the turn's number in the scenario, 1-based.
	N      int
	Input  string
	Output string
	// LatencyMs is the turn's time: the agent's own when the hook reported latency_ms
	// (AgentLatency), else the hook process's, HookMs, which includes starting the hook.
	LatencyMs    int64
	AgentLatency bool
	HookMs       int64
	// Calls are the calls its tries reported; CallsObserved says every try reported a
	// calls list ([] is observed none, an absent key is not observed).
	Calls         []record.Call
	CallsObserved bool
	// Usage is its tries' reported token counts; nil, or a nil count, is not reported.
	Usage *record.Usage
	// Tries is how many times its hook ran (more than 1 when the agent's API asked to wait).
	Tries int
}

// File is one evidence file a hook named, as copied into the records.
type File struct {
	// Name is the copy's name in the records; Reported the name the hook gave.
	Name, Reported string
	Text           string
}

// Where is one text the agent sent out, and where it was seen ("span fetch attribute
// url.full").
type Where struct {
	Where, Text string
}

// session is collect's report of the whole session: its calls and usage replace, never
// add to, the turns' (Rook's hooks report the session again from collect).
type session struct {
	calls         []record.Call
	callsObserved bool
	usage         *record.Usage
}

// Observations is everything observed of one attempt, and what of it is missing.
type Observations struct {
	profile  Profile
	turns    []Turn
	agentRan bool
	session  *session
	collect  map[string]any
	files    []File
	emitted  []Where
	probes   []record.Probe
	probed   bool
	// traced is set when a trace was recorded for the attempt: it is then a channel of
	// calls whatever the profile declares.
	traced bool
	// lost says, per channel, what its sources are known to have lost; a channel with
	// anything here is not complete.
	lost map[Channel][]loss
	// notes are what the sources said that decides nothing (a duplicate span).
	notes []string

	// offset is the scenario's turn number of turns[0] less one, and scoped is set, in
	// OnlyTurn's view of one turn.
	offset int
	scoped bool
}

// New starts the observations of an attempt of a profile's hooks; the sources add to it.
func New(p Profile) *Observations {
	return &Observations{profile: p, lost: map[Channel][]loss{}}
}

// loss is what a source lost of a channel, and of which turn (0: of the whole attempt).
type loss struct {
	turn int
	why  string
}

// lose records what a source lost of a channel, in turn (0 for the whole attempt).
func (o *Observations) lose(ch Channel, turn int, why string) {
	l := loss{turn, why}
	if !slices.Contains(o.lost[ch], l) {
		o.lost[ch] = append(o.lost[ch], l)
	}
}

// AgentRan reports whether any turn replied.
func (o *Observations) AgentRan() bool { return o.agentRan }

// Turns are the turns that replied, in order.
func (o *Observations) Turns() []Turn { return slices.Clone(o.turns) }

// Output is the final reply.
func (o *Observations) Output() string {
	if len(o.turns) == 0 {
		return ""
	}
	return o.turns[len(o.turns)-1].Output
}

// AgentText is every reply of the agent, one after another, each on lines of its own:
// what it said, without what the user said to it.
func (o *Observations) AgentText() string {
	var b strings.Builder
	for _, t := range o.turns {
		b.WriteString(t.Output)
		b.WriteByte('\n')
	}
	return b.String()
}

// Collect is collect's data; ok is false when there is none, and why says why.
func (o *Observations) Collect() (data map[string]any, ok bool, why string) {
	if o.scoped {
		return nil, false, fmt.Sprintf("collect reports the whole session, not turn %d", o.offset+1)
	}
	if o.collect != nil {
		return o.collect, true, ""
	}
	if o.profile.NoCollect {
		return nil, false, fmt.Sprintf("profile %s has no collect hook, so there is no collect data", o.profile.ID)
	}
	return nil, false, ""
}

// Files are the copied evidence files.
func (o *Observations) Files() []File { return slices.Clone(o.files) }

// Emitted is what else the agent sent out, outside its replies and calls' arguments: its
// trace's span attributes but for what it was given (tool results, model input).
func (o *Observations) Emitted() []Where { return slices.Clone(o.emitted) }

// Probes are the MCP servers' answers; why says why there are none, when it knows.
func (o *Observations) Probes() []record.Probe { return slices.Clone(o.probes) }

// Notes are what the sources said that decides nothing, for the record.
func (o *Observations) Notes() []string { return slices.Clone(o.notes) }

// Lost lists, channel by channel, what the sources are known to have lost.
func (o *Observations) Lost() []string {
	var out []string
	for ch := Replies; ch <= Probed; ch++ {
		for _, l := range o.lost[ch] {
			out = append(out, ch.String()+": "+l.why)
		}
	}
	return out
}

// Coverage says how much of a channel was observed.
func (o *Observations) Coverage(ch Channel) Coverage {
	var c Coverage
	switch ch {
	case Replies:
		c.Observed = o.agentRan
	case Calls:
		_, c.Observed, c.Why = o.Calls()
	case Usage:
		u, why := o.TokenUsage()
		c.Observed = u.Input != nil || u.Output != nil
		if !c.Observed {
			c.Why = why["input"]
		}
	case Emitted:
		c.Observed = o.traced
		if !c.Observed {
			c.Why = "no trace was recorded, so nothing the agent sent out beyond its replies and calls was seen"
		}
	case Collected:
		_, c.Observed, c.Why = o.Collect()
	case Probed:
		c.Observed = o.probed
	}
	lost := o.lost[ch]
	c.Complete = c.Observed && len(lost) == 0
	if c.Observed && len(lost) > 0 {
		why := make([]string, len(lost))
		for i, l := range lost {
			why[i] = l.why
		}
		c.Why = strings.Join(why, "; ")
	}
	return c
}

// OnlyTurn is the observations of turn n alone (1-based), for a criterion about that
// turn: its reply, calls, usage and time, and nothing of collect's, which reports the
// whole session and cannot be put in a turn. why says, when there is none, that the turn
// never replied.
func (o *Observations) OnlyTurn(n int) (view *Observations, why string) {
	if n < 1 || n > len(o.turns) {
		return nil, fmt.Sprintf("turn %d never replied (%d turn(s) did), so there is nothing of it to judge", n, len(o.turns))
	}
	v := &Observations{profile: o.profile, turns: o.turns[n-1 : n], agentRan: true, traced: o.traced,
		offset: n - 1, scoped: true, lost: map[Channel][]loss{}}
	for ch, list := range o.lost {
		for _, l := range list {
			if l.turn == 0 || l.turn == n { // the attempt's losses are every turn's
				v.lost[ch] = append(v.lost[ch], l)
			}
		}
	}
	return v, ""
}

// Calls returns the scenario's calls when they were observed: collect's report of the
// session, or else every turn's calls when every turn reported a calls list. ok is false
// when they were not, and why then says which turn did not report them. Whether they are
// all the calls made is Coverage(Calls).Complete.
func (o *Observations) Calls() (calls []record.Call, ok bool, why string) {
	if !o.profile.Calls && !o.traced {
		return nil, false, fmt.Sprintf("profile %s declares capabilities.calls: false, so calls are not observed", o.profile.ID)
	}
	if o.session != nil && o.session.callsObserved && !o.scoped {
		return o.session.calls, true, ""
	}
	var missing []string
	for _, t := range o.turns {
		if !t.CallsObserved {
			missing = append(missing, fmt.Sprint(t.N))
			continue
		}
		calls = append(calls, t.Calls...)
	}
	if len(missing) > 0 && o.scoped {
		return nil, false, fmt.Sprintf("turn %s reported no \"calls\"; collect's calls are the whole session's and cannot be put in a turn", missing[0])
	}
	switch {
	case len(missing) == len(o.turns): // no turn at all, too
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

// CallsFromCollect reports whether the calls are collect's report of the session.
func (o *Observations) CallsFromCollect() bool {
	return o.session != nil && o.session.callsObserved && !o.scoped
}

// UsageFromCollect reports whether the usage is collect's report of the session.
func (o *Observations) UsageFromCollect() bool {
	return o.session != nil && o.session.usage != nil && !o.scoped
}

// SessionCalls are the calls collect reported of the session, observed or not.
func (o *Observations) SessionCalls() []record.Call {
	if o.session == nil {
		return nil
	}
	return slices.Clone(o.session.calls)
}

// TokenUsage returns the session's token counts, each observed or nil: collect's count
// when it reported one, else the sum over the turns when every turn reported it. why
// says, for each count that is nil, which turn (or that no phase) reported it.
func (o *Observations) TokenUsage() (u record.Usage, why map[string]string) {
	why = map[string]string{}
	field := func(name string, get func(*record.Usage) *int64) *int64 {
		if o.UsageFromCollect() {
			if n := get(o.session.usage); n != nil {
				return n
			}
		}
		var sum int64
		var missing []string
		for _, t := range o.turns {
			var n *int64
			if t.Usage != nil {
				n = get(t.Usage)
			}
			if n == nil {
				missing = append(missing, fmt.Sprint(t.N))
				continue
			}
			sum += *n
		}
		switch {
		case len(o.turns) == 0 || len(missing) == len(o.turns):
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
func (o *Observations) Usage() *record.Usage {
	u, _ := o.TokenUsage()
	if u.Input == nil && u.Output == nil {
		return nil
	}
	return &u
}
