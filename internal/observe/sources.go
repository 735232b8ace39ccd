package observe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/record"
)

// Hooks adds what the attempt's hooks reported, as hooks.json holds it: each execute turn
// that replied, with every try of it, then collect's report. input gives each turn's
// message. A turn that failed ends the turns: nothing after it replied.
func (o *Observations) Hooks(h record.HookPhases, input func(turn int) string) {
	if h.Execute != nil {
		for _, t := range h.Execute.Turns {
			if !t.OK || !o.Turn(input(t.Turn), t) {
				break
			}
		}
	}
	if h.Collect != nil && h.Collect.OK {
		o.CollectReport(h.Collect.Data)
	}
}

// Turn adds one execute turn from its record: the reply of its last try, and the calls
// and usage of every try. It reports whether the turn replied.
func (o *Observations) Turn(input string, rec *record.PhaseRecord) bool {
	out, err := hook.FromData(rec.Data, true)
	if err != nil {
		return false
	}
	n := rec.Turn
	if n == 0 {
		n = len(o.turns) + 1
	}
	t := turn{Turn: Turn{N: n, Input: input, Output: out.Reply, LatencyMs: rec.DurationMs, HookMs: rec.DurationMs, Tries: 1 + len(rec.Tries)}}
	if out.LatencyMs != nil {
		t.LatencyMs, t.AgentLatency = *out.LatencyMs, true
	}
	// Every try is the turn's: an earlier one asked to wait instead of replying, and a
	// call it made was made. A try that did not say is a gap in the turn.
	outs := make([]*hook.Output, 0, t.Tries)
	for _, try := range rec.Tries {
		tout, _ := hook.FromData(try.Data, false)
		if tout == nil {
			tout = &hook.Output{}
		}
		outs = append(outs, tout)
	}
	outs = append(outs, out)
	for i, tout := range outs {
		try := i + 1
		if tout.CallsObserved {
			t.hookCalls = true
			for _, c := range tout.Calls {
				c.From, c.Turn, c.Try = "", n, try
				t.calls = append(t.calls, c)
			}
		} else {
			t.silent = append(t.silent, try)
		}
		if try == 1 {
			t.usage = usageOf(tout.Usage)
		} else {
			t.usage = sumUsage(t.usage, usageOf(tout.Usage))
		}
		t.hookUsage = t.hookUsage || tout.Usage != nil
		if tout.Usage == nil {
			t.quiet = append(t.quiet, try)
		}
	}
	if out.ReplyUnobserved != "" {
		o.lose(Replies, n, fmt.Sprintf("turn %d's reply was not seen: %s", n, out.ReplyUnobserved))
	}
	t.unread = unread(n, out)
	o.lostUnread(n, out)
	o.turns = append(o.turns, t)
	return true
}

// contract are the keys of an execute hook's output the contract reads; text under any
// other key is the agent's words too, which a search for what it must never say reads.
var contract = map[string]bool{"output": true, "agent_reply": true, "calls": true, "usage": true, "conversation": true,
	"latency_ms": true, "retry_after_ms": true}

// unread is the text a turn's hook printed under keys the contract does not read, each
// where it was: a reply printed as "response", or any other key, is still what the agent
// said.
func unread(turn int, out *hook.Output) []Where {
	var keys []string
	for k := range out.Data {
		if !contract[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var list []Where
	for _, k := range keys {
		var b strings.Builder
		texts(out.Data[k], &b, 0)
		if b.Len() > 0 {
			list = append(list, Where{Where: fmt.Sprintf("turn %d %q, a key the hook contract does not read", turn, k), Text: b.String(), Turn: turn})
		}
	}
	return list
}

// texts writes every string in v, one to a line, depth-first; numbers and booleans are
// left out. Depth is bounded by the hook's own bound on its output (hook.MaxDepth).
func texts(v any, b *strings.Builder, depth int) {
	if depth > hook.MaxDepth {
		return
	}
	switch x := v.(type) {
	case string:
		b.WriteString(x)
		b.WriteByte('\n')
	case []any:
		for _, e := range x {
			texts(e, b, depth+1)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			texts(x[k], b, depth+1)
		}
	}
}

// lostUnread marks the channels a hook printed under a key the contract does not read,
// while the contract's own key was empty or absent: the record holds the agent's words,
// and they are not what was read.
func (o *Observations) lostUnread(turn int, out *hook.Output) {
	for _, key := range out.Unread {
		why := fmt.Sprintf("turn %d printed %s under a key the hook contract does not read (%s)", turn, key, strings.Join(out.Notes, "; "))
		switch key {
		case "output":
			o.lose(Replies, turn, why)
		case "calls":
			o.lose(Calls, turn, why)
		case "usage":
			o.lose(Usage, turn, why)
		}
	}
}

// CollectReport adds collect's data, and what it reported of the session's calls and
// usage.
func (o *Observations) CollectReport(data map[string]any) {
	o.collect = data
	if o.collect == nil {
		o.collect = map[string]any{}
	}
	out, err := hook.FromData(data, false)
	if err != nil {
		return
	}
	for _, key := range out.Unread {
		why := fmt.Sprintf("collect printed %s under a key the hook contract does not read (%s)", key, strings.Join(out.Notes, "; "))
		switch key {
		case "calls":
			o.lose(Calls, 0, why)
		case "usage":
			o.lose(Usage, 0, why)
		}
	}
	if out.CallsObserved {
		o.collectSaid = true
		o.collectCalls = make([]record.Call, 0, len(out.Calls))
		for _, c := range out.Calls {
			c.From, c.Turn, c.Try = "collect", 0, 0
			o.collectCalls = append(o.collectCalls, c)
		}
	}
	o.collectUsage = out.Usage
}

// File adds an evidence file's text, as copied; cut says only its start was copied.
func (o *Observations) File(f File, cut bool) {
	o.files = append(o.files, f)
	if cut {
		o.lose(Collected, 0, fmt.Sprintf("evidence file %s is larger than the records keep: only its start is in them", f.Reported))
	}
}

// Unreadable notes an evidence file a hook named that could not be copied.
func (o *Observations) Unreadable(file, why string) {
	o.lose(Collected, 0, fmt.Sprintf("evidence file %s was not copied: %s", file, why))
}

// ProbeAnswers adds the MCP servers' answers the probes asked for after collect.
func (o *Observations) ProbeAnswers(ps []record.Probe) {
	o.probes, o.probed = append(o.probes, ps...), true
}

// Said are the observations of an attempt given as it was said: each turn's input and
// reply, with the calls it reported (nil: none reported). It is the source of fixed cases
// (the judge's preflight question, its test kit), not of runs.
func Said(turns ...Given) *Observations {
	o := New(Profile{ID: "given", Calls: true})
	for i, g := range turns {
		t := turn{Turn: Turn{N: i + 1, Input: g.Input, Output: g.Output, Tries: 1, LatencyMs: g.LatencyMs, HookMs: g.LatencyMs}, hookCalls: g.Calls != nil}
		if g.Calls == nil {
			t.silent = []int{1}
		}
		t.usage, t.hookUsage = usageOf(g.Usage), g.Usage != nil
		for _, c := range g.Calls {
			c.Turn, c.Try = i+1, 1
			t.calls = append(t.calls, c)
		}
		o.turns = append(o.turns, t)
	}
	return o
}

// Given is one turn of a fixed case: what the user said, what the agent replied, and the
// calls it made (nil: not observed).
type Given struct {
	Input, Output string
	Calls         []record.Call
	LatencyMs     int64
	Usage         *record.Usage
}
