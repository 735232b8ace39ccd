package observe

import (
	"fmt"
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
	t := Turn{N: n, Input: input, Output: out.Reply, LatencyMs: rec.DurationMs, HookMs: rec.DurationMs,
		Calls: out.Calls, CallsObserved: out.CallsObserved, Usage: out.Usage, Tries: 1 + len(rec.Tries)}
	if out.LatencyMs != nil {
		t.LatencyMs, t.AgentLatency = *out.LatencyMs, true
	}
	o.unread(n, out)
	// An earlier try asked to wait instead of replying; what it reported is the turn's
	// too: a call it made was made, and a try that did not say is a gap.
	for i, try := range rec.Tries {
		tout, _ := hook.FromData(try.Data, false)
		if tout == nil {
			tout = &hook.Output{}
		}
		label := fmt.Sprintf("turn %d try %d (asked to wait)", n, i+1)
		if tout.CallsObserved {
			t.Calls = append(append([]record.Call(nil), tout.Calls...), t.Calls...)
		} else if t.CallsObserved {
			o.lose(Calls, n, label+` reported no "calls", so calls it may have made are not in the record`)
		}
		t.Usage = addUsage(t.Usage, tout.Usage, true)
		if tout.Usage == nil || tout.Usage.Input == nil || tout.Usage.Output == nil {
			o.lose(Usage, n, label+" reported no usage, so tokens it may have used are not counted")
		}
	}
	o.turns = append(o.turns, t)
	o.agentRan = true
	return true
}

// unread marks the channels a hook printed under a key the contract does not read, while
// the contract's own key was empty or absent: the record holds the agent's words, and
// they are not what was read.
func (o *Observations) unread(turn int, out *hook.Output) {
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
	if !out.CallsObserved && out.Usage == nil {
		return
	}
	o.session = &session{calls: out.Calls, callsObserved: out.CallsObserved, usage: out.Usage}
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
// reply, with the calls it reported (CallsObserved). It is the source of fixed cases (the
// judge's preflight question, its test kit), not of runs.
func Said(turns ...Turn) *Observations {
	o := New(Profile{ID: "given", Calls: true})
	for i, t := range turns {
		t.N, t.Tries = i+1, 1
		o.turns = append(o.turns, t)
		o.agentRan = true
	}
	return o
}

// addUsage sums two counts of tokens; a nil count in either makes the sum's count nil (a
// model call that did not say makes the total unknown), unless lenient, where an absent
// b leaves a as it is.
func addUsage(a, b *record.Usage, lenient bool) *record.Usage {
	switch {
	case b == nil && lenient:
		return a
	case a == nil:
		return b
	case b == nil:
		return &record.Usage{}
	}
	sum := func(x, y *int64) *int64 {
		if x == nil || y == nil {
			return nil
		}
		n := *x + *y
		return &n
	}
	return &record.Usage{Input: sum(a.Input, b.Input), Output: sum(a.Output, b.Output)}
}
