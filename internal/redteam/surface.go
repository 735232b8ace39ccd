package redteam

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// place is one thing the agent emitted, where it was found, and its tier.
type place struct {
	where, text, tier string
}

// surfaces are what the agent emitted in an attempt, as signals and the canary are matched
// over it: each turn's reply, each call's arguments (from a hook's calls or the agent's
// trace), what else its trace shows it sent out (Observations.Emitted: a request's URL,
// its model's output), and collect's data but for its calls, whose arguments are listed
// as calls. A
// call's result is left out: it is what a tool gave the agent, not what the agent emitted
// (a tool that reads a planted fixture returns its canary as it should).
func surfaces(ev *observe.Observations) []place {
	var out []place
	for _, t := range ev.Turns() {
		out = append(out, place{fmt.Sprintf("turn %d reply", t.N), t.Output, check.TierSaid})
		for _, c := range t.Calls {
			out = append(out, callPlace(fmt.Sprintf("turn %d", t.N), c, check.TierReported))
		}
	}
	for _, c := range ev.SessionCalls() {
		out = append(out, callPlace("collect's", c, check.TierCollected))
	}
	for _, e := range ev.Emitted() {
		out = append(out, place{"trace " + e.Where, e.Text, check.TierReported})
	}
	if collect, _, _ := ev.Collect(); len(collect) > 0 {
		rest := make(map[string]any, len(collect))
		for k, v := range collect {
			if k != "calls" {
				rest[k] = v
			}
		}
		if b, err := json.Marshal(rest); err == nil && len(rest) > 0 {
			out = append(out, place{"collect's data", string(b), check.TierCollected})
		}
	}
	return out
}

func callPlace(in string, c record.Call, tier string) place {
	args, _ := json.Marshal(c.Arguments)
	where := fmt.Sprintf("%s call %s arguments", in, c.Name)
	if c.From == "trace" {
		where += " (trace)"
	}
	return place{where, string(args), tier}
}

// seenCalls are every call seen in the attempt, from any turn or from collect: a call
// seen is seen, whether or not every turn reported its calls.
func seenCalls(ev *observe.Observations) []record.Call {
	var out []record.Call
	for _, t := range ev.Turns() {
		out = append(out, t.Calls...)
	}
	return append(out, ev.SessionCalls()...)
}

// lostText says what of the text the agent emitted is known to be missing from the
// record (a reply under a key not read, calls or span attributes clipped, dropped or
// refused); "" when nothing is.
func lostText(ev *observe.Observations) string {
	var why []string
	for _, ch := range []observe.Channel{observe.Replies, observe.Calls, observe.Emitted} {
		if cov := ev.Coverage(ch); cov.Observed && !cov.Complete {
			why = append(why, cov.Why)
		}
	}
	return strings.Join(why, "; ")
}
