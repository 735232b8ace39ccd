package redteam

import (
	"encoding/json"
	"fmt"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
)

// place is one thing the agent emitted, where it was found, and its tier.
type place struct {
	where, text, tier string
}

// surfaces are what the agent emitted in an attempt, as signals and the canary are matched
// over it: each turn's reply, each call's arguments (from a hook's calls or the agent's
// trace), what else its trace shows it sent out (check.Evidence.Emitted: a request's URL,
// its model's output), and collect's data but for its calls, whose arguments are listed
// as calls. A
// call's result is left out: it is what a tool gave the agent, not what the agent emitted
// (a tool that reads a planted fixture returns its canary as it should).
func surfaces(ev *check.Evidence) []place {
	var out []place
	for i, t := range ev.Turns {
		out = append(out, place{fmt.Sprintf("turn %d reply", i+1), t.Output, check.TierSaid})
		for _, c := range t.Calls {
			out = append(out, callPlace(fmt.Sprintf("turn %d", i+1), c, check.TierReported))
		}
	}
	if ev.Session != nil {
		for _, c := range ev.Session.Calls {
			out = append(out, callPlace("collect's", c, check.TierCollected))
		}
	}
	for _, e := range ev.Emitted {
		out = append(out, place{"trace " + e.Where, e.Text, check.TierReported})
	}
	if len(ev.Collect) > 0 {
		rest := make(map[string]any, len(ev.Collect))
		for k, v := range ev.Collect {
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
func seenCalls(ev *check.Evidence) []record.Call {
	var out []record.Call
	for _, t := range ev.Turns {
		out = append(out, t.Calls...)
	}
	if ev.Session != nil {
		out = append(out, ev.Session.Calls...)
	}
	return out
}
