// Package observe is the one place that turns what an attempt's sources reported (each
// try of each execute turn, collect, the evidence files, the agent's spans, the MCP
// probes) into what was observed of the agent, as one Observations value.
//
// Every source says what it lost: a field it did not report, a try it left out, a span
// that was refused, dropped, clipped or sent twice. Every accessor returns its value as a
// Seen: the value with whether it was observed, whether it is whole, and why not, so that
// whatever decides a criterion reads a missing or partial channel as Unable to Verify
// (Coverage.Gap), never as zero, empty or Pass. Nothing else in the project reads a
// hook's output or a span to find out what the agent did, and nothing else merges sources.
//
// # How the sources merge
//
// One policy, here and nowhere else (TestMergePolicy holds it as a table):
//
//   - A call seen by any source is seen. Each execute try's calls, the trace's tool spans
//     under that turn (any try), and collect's report of the session are one list, a call
//     counted once by identity: the same gen_ai.tool.call.id, else the same name and
//     arguments, each call matching one other at most. The turns come first, in order;
//     collect's calls no turn holds follow. Collect adds and never hides.
//   - A turn's calls are whole when every try of it printed a calls list, or when the
//     trace is whole (nothing refused, dropped, unsigned, orphaned; every try exported a
//     span). The session's are whole when every turn's are, or when collect reported them
//     (its report is of the whole session), and nothing any source lost of them says
//     otherwise (a try's unread key, a clipped tool span).
//   - A tool span whose parent never arrived is the session's, not any turn's: the
//     session's calls hold it, and a criterion about one turn is not whole without it. One
//     under open or close, or under a turn that never replied, is the session's too; one
//     under collect is the harness reading back, not the agent acting, and is left out.
//   - A turn's usage is the sum over its tries, unknown when any try left a count out;
//     then, or when no try reported usage, the trace's model spans of the turn, when the
//     trace is whole. The session's is collect's count when it gave one (a total, not a
//     list to add to), else the turns' sum when every turn's is known.
//   - Each piece keeps its provenance (execute's report and its turn and try, collect's
//     report, the trace), and evidence lines say it (record.Call.Source).
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
	// Collected is collect's data and the evidence files: state read from the system it
	// acted on.
	Collected
	// Probed is the state MCP servers answered for after collect.
	Probed
)

var channelNames = [...]string{"replies", "calls", "usage", "emitted text", "collect data", "mcp probes"}

func (c Channel) String() string { return channelNames[c] }

// Coverage is how much of a channel was observed: Observed when a source reported it at
// all, Complete when nothing of it is known to be missing; Why says what is missing, or
// why nothing was observed. Sources names the sources its value came from ("execute",
// "collect", "trace", "file", "probe").
type Coverage struct {
	Observed, Complete bool
	Why                string
	Sources            []string
}

// Gap is the one reading of a coverage that decides: "" when the channel is whole, else
// why it is not, never empty, which a reader turns into Unable to Verify (or, for a
// search, into "nothing found, but not everything was searched").
func (c Coverage) Gap() string {
	switch {
	case c.Observed && c.Complete:
		return ""
	case c.Why != "":
		return c.Why
	case c.Observed:
		return "not all of it was observed"
	}
	return "it was not observed"
}

// Seen is a value observed of the agent with its coverage. No accessor of Observations
// hands out a value without one.
type Seen[T any] struct {
	Value T
	Coverage
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
// how long it took. Its calls and usage are read through OnlyTurn, with their coverage.
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
	// Tries is how many times its hook ran (more than 1 when the agent's API asked to wait).
	Tries int
}

// turn is a turn with what its sources reported of its calls and usage.
type turn struct {
	Turn
	calls []record.Call
	// hookCalls says some try printed a calls list; silent are the tries that did not.
	hookCalls bool
	silent    []int
	// usage is the tries' sum, a count nil when any try left it out; hookUsage says a try
	// reported any, and quiet are the tries that reported none.
	usage     record.Usage
	hookUsage bool
	quiet     []int
	// unread are the agent's words its hook printed under keys the contract does not read.
	unread []Where
}

// File is one evidence file a hook named, as copied into the records.
type File struct {
	// Name is the copy's name in the records; Reported the name the hook gave.
	Name, Reported string
	Text           string
}

// Where is one text the agent sent out, and where it was seen ("span fetch attribute
// url.full"); Turn is the turn it was said in, 0 when it is the session's.
type Where struct {
	Where, Text string
	Turn        int
}

// ReplyOf is where a turn's reply is, as Words names it.
func ReplyOf(turn int) string { return fmt.Sprintf("turn %d reply", turn) }

// Observations is everything observed of one attempt, and what of it is missing.
type Observations struct {
	profile Profile
	turns   []turn
	// collect is collect's data; collectCalls and collectUsage what it reported of the
	// session, when it did.
	collect      map[string]any
	collectCalls []record.Call
	collectSaid  bool
	collectUsage *record.Usage
	files        []File
	emitted      []Where
	probes       []record.Probe
	probed       bool
	// traced is set when a trace was recorded for the attempt: it is then a channel of
	// calls whatever the profile declares; traceWhy says why it is not whole.
	traced   bool
	traceWhy string
	// unplaced are the trace's tool calls whose span's ancestry is broken: the session's,
	// in no turn.
	unplaced []record.Call
	// outside are the trace's tool calls under a hook call that is no replied turn (open,
	// close, a turn that failed): the session's, and surely no replied turn's.
	outside []record.Call
	// lost says, per channel, what its sources are known to have lost; a channel with
	// anything here is not complete.
	lost map[Channel][]loss
	// notes are what the sources said that decides nothing (a duplicate span).
	notes []string

	// only is the scenario's turn number (1-based) in OnlyTurn's view of one turn; 0 for
	// the whole attempt.
	only int
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

// losses are the channel's losses that bear on the view.
func (o *Observations) losses(ch Channel) []string {
	var out []string
	for _, l := range o.lost[ch] {
		if o.only == 0 || l.turn == 0 || l.turn == o.only {
			out = append(out, l.why)
		}
	}
	return out
}

// seen is a value with its coverage: observed as given, whole when whole and nothing was
// lost of the channel; why is what is missing otherwise.
func seen[T any](o *Observations, ch Channel, v T, observed, whole bool, why string, sources ...string) Seen[T] {
	c := Coverage{Observed: observed, Complete: observed && whole, Why: why, Sources: sources}
	if lost := o.losses(ch); observed && len(lost) > 0 {
		c.Complete = false
		if whole {
			c.Why = strings.Join(lost, "; ")
		} else {
			c.Why = strings.Join(append([]string{why}, lost...), "; ")
		}
	}
	if c.Complete {
		c.Why = ""
	}
	return Seen[T]{Value: v, Coverage: c}
}

// Turns are the turns that replied, in order; not observed when none did.
func (o *Observations) Turns() Seen[[]Turn] {
	out := make([]Turn, len(o.turns))
	for i, t := range o.turns {
		out[i] = t.Turn
	}
	why := ""
	if len(out) == 0 {
		why = "the agent never replied"
	}
	return seen(o, Replies, out, len(out) > 0, true, why, "execute")
}

// Output is the final reply.
func (o *Observations) Output() Seen[string] {
	t := o.Turns()
	var s string
	if n := len(t.Value); n > 0 {
		s = t.Value[n-1].Output
	}
	return Seen[string]{Value: s, Coverage: t.Coverage}
}

// AgentText is every reply of the agent, one after another, each on lines of its own:
// what it said, without what the user said to it.
func (o *Observations) AgentText() Seen[string] {
	t := o.Turns()
	var b strings.Builder
	for _, turn := range t.Value {
		b.WriteString(turn.Output)
		b.WriteByte('\n')
	}
	return Seen[string]{Value: b.String(), Coverage: t.Coverage}
}

// Words are every text the agent said, where a search for what it must never say looks:
// each turn's reply ("turn 2 reply"), and the text its hook printed under keys the
// contract does not read ("turn 2 \"response\""), which is the agent's too. Whole when
// the agent replied and every reply was seen (a hook may say it could not see one:
// reply_unobserved).
func (o *Observations) Words() Seen[[]Where] {
	var out []Where
	for _, t := range o.turns {
		out = append(out, Where{Where: ReplyOf(t.N), Text: t.Output, Turn: t.N})
		out = append(out, t.unread...)
	}
	why := ""
	if len(out) == 0 {
		why = "the agent never replied"
	}
	return seen(o, Replies, out, len(out) > 0, true, why, "execute")
}

// Collect is collect's data: not observed when there is none, and why.
func (o *Observations) Collect() Seen[map[string]any] {
	switch {
	case o.only > 0:
		return seen[map[string]any](o, Collected, nil, false, false, fmt.Sprintf("collect reports the whole session, not turn %d", o.only))
	case o.collect != nil:
		return seen(o, Collected, o.collect, true, true, "", "collect")
	case o.profile.NoCollect:
		return seen[map[string]any](o, Collected, nil, false, false, fmt.Sprintf("profile %s has no collect hook, so there is no collect data", o.profile.ID))
	}
	return seen[map[string]any](o, Collected, nil, false, false, "collect reported no data")
}

// Files are the copied evidence files: whole when every file a hook named was copied whole.
func (o *Observations) Files() Seen[[]File] {
	return seen(o, Collected, slices.Clone(o.files), len(o.files) > 0 || len(o.losses(Collected)) > 0, true, "no hook named an evidence file", "file")
}

// Emitted is what else the agent sent out, outside its replies and calls' arguments: its
// trace's span attributes but for what it was given (tool results, model input). Not
// observed without a trace.
func (o *Observations) Emitted() Seen[[]Where] {
	if !o.traced {
		return seen[[]Where](o, Emitted, nil, false, false, "no trace was recorded, so nothing the agent sent out beyond its replies and calls was seen")
	}
	return seen(o, Emitted, slices.Clone(o.emitted), true, true, "", "trace")
}

// Probes are the MCP servers' answers; not observed when no probe ran.
func (o *Observations) Probes() Seen[[]record.Probe] {
	return seen(o, Probed, slices.Clone(o.probes), o.probed, true, "no MCP probe ran", "probe")
}

// Notes are what the sources said that decides nothing, for the record.
func (o *Observations) Notes() []string { return slices.Clone(o.notes) }

// Lost lists, channel by channel, what the sources are known to have lost: what each
// recorded, and the tries of a turn that left its calls or usage out where no other
// source made up for them.
func (o *Observations) Lost() []string {
	var out []string
	for ch := Replies; ch <= Probed; ch++ {
		for _, why := range o.losses(ch) {
			out = append(out, ch.String()+": "+why)
		}
		for _, t := range o.turns {
			switch {
			case ch == Calls && t.hookCalls && o.callsGap(t) != "":
				for _, n := range t.silent {
					out = append(out, fmt.Sprintf("calls: turn %d try %d (asked to wait) reported no \"calls\", so calls it may have made are not in the record", t.N, n))
				}
			case ch == Usage && t.hookUsage && (t.usage.Input == nil || t.usage.Output == nil):
				for _, n := range t.quiet {
					out = append(out, fmt.Sprintf("usage: turn %d try %d reported no usage, so tokens it may have used are not counted", t.N, n))
				}
			}
		}
	}
	return out
}

// Coverage says how much of a channel was observed.
func (o *Observations) Coverage(ch Channel) Coverage {
	switch ch {
	case Replies:
		return o.Turns().Coverage
	case Calls:
		return o.Calls().Coverage
	case Usage:
		return o.Usage().Coverage
	case Emitted:
		return o.Emitted().Coverage
	case Collected:
		if c := o.Collect(); c.Observed {
			return c.Coverage
		}
		return o.Files().Coverage
	}
	return o.Probes().Coverage
}

// WithoutReplies is the observations with the agent's own words withheld: each turn keeps
// what the user said, its calls, usage and time, and collect's data, evidence files and
// probes stay, but no reply is in it, nor what the agent printed elsewhere. It is what a
// judge commits from before it reads the replies (the model judge's commit-first mode).
func (o *Observations) WithoutReplies() *Observations {
	v := *o
	v.turns = make([]turn, len(o.turns))
	for i, t := range o.turns {
		t.Output, t.unread = "", nil
		v.turns[i] = t
	}
	v.emitted = nil
	return &v
}

// OnlyTurn is the observations of turn n alone (1-based), for a criterion about that
// turn: its reply, calls, usage and time, and nothing of collect's, which reports the
// whole session and cannot be put in a turn. why says, when there is none, that the turn
// never replied.
func (o *Observations) OnlyTurn(n int) (view *Observations, why string) {
	if n < 1 || n > len(o.turns) {
		return nil, fmt.Sprintf("turn %d never replied (%d turn(s) did), so there is nothing of it to judge", n, len(o.turns))
	}
	v := *o
	v.turns, v.only = o.turns[n-1:n], n
	return &v, ""
}
