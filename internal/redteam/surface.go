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
	for _, w := range ev.Words().Value {
		out = append(out, place{w.Where, w.Text, check.TierSaid})
	}
	for _, c := range ev.Calls().Value {
		tier := check.TierReported
		if c.From == "collect" {
			tier = check.TierCollected
		}
		out = append(out, callPlace(c, tier))
	}
	for _, e := range ev.Emitted().Value {
		out = append(out, place{"trace " + e.Where, e.Text, check.TierReported})
	}
	if collect := ev.Collect().Value; len(collect) > 0 {
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

func callPlace(c record.Call, tier string) place {
	args, _ := json.Marshal(c.Arguments)
	return place{fmt.Sprintf("call %s arguments (%s)", c.Name, c.Source()), string(args), tier}
}

// lostText says what of the text the agent emitted is missing from the record: its
// replies or calls not observed or not whole (a reply under a key not read, no source of
// calls at all, calls clipped, dropped or refused), or its trace's other text not whole;
// "" when nothing is. A channel not observed is a loss to a search that could have found
// something in it; the emitted text is a channel only where a trace is recorded.
func lostText(ev *observe.Observations) string {
	var why []string
	for _, c := range []observe.Coverage{ev.Turns().Coverage, ev.Calls().Coverage} {
		if gap := c.Gap(); gap != "" {
			why = append(why, gap)
		}
	}
	if e := ev.Emitted(); e.Observed && !e.Complete {
		why = append(why, e.Gap())
	}
	return strings.Join(why, "; ")
}
