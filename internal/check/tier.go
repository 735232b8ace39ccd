package check

import (
	"slices"
	"strings"

	"github.com/rookgo/rookgo/internal/observe"
)

// The tiers of evidence, weakest first: what the agent said (its reply), what it reported
// of itself (its call log or usage, as execute printed them), and what was collected: read
// after the turns by collect, or measured by the harness itself, from the system the
// agent acted on.
const (
	TierSaid      = "said"
	TierReported  = "reported"
	TierCollected = "collected"
)

// EvidenceParam is the param every check takes besides its own: the weakest tier of
// evidence that may decide the criterion.
const EvidenceParam = "evidence"

// Tiers are the tiers, weakest first.
var Tiers = []string{TierSaid, TierReported, TierCollected}

// TierRank orders tiers: 1 for said, 2 reported, 3 collected, 0 for none.
func TierRank(tier string) int {
	for i, t := range Tiers {
		if t == tier {
			return i + 1
		}
	}
	return 0
}

// TierOf is the tier of the evidence a computed check decided on, from what it reads and
// where the evidence had it: collect's data, or collect's report of the session's calls or
// usage, is collected; execute's calls, usage and agent-reported latency are reported; a
// turn's time the harness measured is collected; the replies are said. "" for a check that
// decides on no evidence (one this judge does not support, or a judge model's, whose tier
// its quotes give).
func TierOf(c Check, ev *observe.Observations) string {
	o := c.Observes()
	switch {
	case o.Has(ObservesModel) || o == 0:
		return ""
	case o.Has(ObservesCollect):
		return TierCollected
	case o.Has(ObservesCalls):
		// Collected only when collect's report of the session saw every call shown.
		calls := ev.Calls()
		if !slices.Contains(calls.Sources, "collect") {
			return TierReported
		}
		for _, c := range calls.Value {
			if !c.SeenBy("collect") {
				return TierReported
			}
		}
		return TierCollected
	case o.Has(ObservesUsage):
		if slices.Equal(ev.Usage().Sources, []string{"collect"}) {
			return TierCollected
		}
		return TierReported
	case o.Has(ObservesLatency):
		for _, t := range ev.Turns().Value {
			if t.AgentLatency {
				return TierReported
			}
		}
		return TierCollected
	}
	return TierSaid
}

// QuoteTier is the tier of a judge model's quote by where it was found (a row's
// quotes_from: "turn 2 reply", "CALL-01 issue_refund result", "evidence file ...").
func QuoteTier(from string) string {
	switch {
	case strings.Contains(from, "reply") || strings.HasPrefix(from, "turn "):
		return TierSaid
	case strings.HasPrefix(from, "CALL-"):
		return TierReported
	}
	return TierCollected
}
