package decide

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
)

// evaluate decides every criterion on what was observed, in order.
func evaluate(criteria []scenario.Criterion, ev *observe.Observations, turns int) []record.Row {
	rows := make([]record.Row, 0, len(criteria))
	for i := range criteria {
		c := &criteria[i]
		res, turn, tier := decideOne(c, ev, turns)
		r := record.Row{CriterionID: c.ID, Criterion: c.Statement, Check: c.Kind, Subtest: c.Subtest(), Expected: c.Expected(),
			Achieved: res.Achieved, Status: res.Status, Reason: res.Reason, Evidence: res.Evidence, Confidence: res.Confidence, Turn: turn}
		if r.Status != record.UnableToVerify {
			r.Tier = tier
		}
		if r.Criterion == "" {
			r.Criterion = c.Kind
		}
		rows = append(rows, r)
	}
	return rows
}

// decideOne decides one criterion: on the turn it is about, when it names one (turns is the
// scenario's number of turns, for turn: last), else on every turn. turn says which, ""
// for every turn.
func decideOne(c *scenario.Criterion, ev *observe.Observations, turns int) (check.Result, string, string) {
	if c.Turn == 0 {
		return check.Decide(c.Check, ev), "", check.TierOf(c.Check, ev)
	}
	n, turn := c.Turn, strconv.Itoa(c.Turn)
	if n == spec.LastTurn {
		n, turn = turns, fmt.Sprintf("last (%d)", turns)
	}
	view, why := ev.OnlyTurn(n)
	if view == nil {
		return check.Result{Status: record.UnableToVerify, Reason: record.AgentNeverRan, Achieved: why, Confidence: "High"}, turn, ""
	}
	return check.Decide(c.Check, view), turn, check.TierOf(c.Check, view)
}

// requireTier turns each decided row whose evidence is weaker than its criterion requires
// (evidence: collected) into Unable to Verify, saying what would make it checkable. It
// runs once every row is decided, the judge model's included.
func requireTier(criteria []scenario.Criterion, rows []record.Row) {
	need := map[string]string{}
	for _, c := range criteria {
		if c.Requires != "" {
			need[c.ID] = c.Requires
		}
	}
	for i := range rows {
		r := &rows[i]
		want := need[r.CriterionID]
		if want == "" || r.Status == record.UnableToVerify || check.TierRank(r.Tier) >= check.TierRank(want) {
			continue
		}
		had := r.Tier
		if had == "" {
			had = "no"
		}
		r.Achieved = fmt.Sprintf("it was decided %s on %s evidence, and the criterion requires %s evidence (%s): %s",
			r.Status, had, want, remedy[want], r.Achieved)
		r.Status, r.Reason = record.UnableToVerify, record.NotObservable
	}
}

// remedy says how a profile provides each tier.
var remedy = map[string]string{
	check.TierReported:  `execute or collect returns "calls" and "usage" from the agent's own log`,
	check.TierCollected: "a collect hook that reads the state of the system the agent acted on, or names an evidence file from it",
}

// forbidden finds every forbidden text in the agent's words (observe.Words: its replies,
// and what its hooks printed under keys the contract does not read), case-insensitively.
// A hit is never excused, so the search reads everything the agent said, not only what
// the contract reads.
func forbidden(texts []string, ev *observe.Observations) []record.ForbiddenHit {
	var hits []record.ForbiddenHit
	words := ev.Words().Value
	for _, f := range texts {
		if strings.TrimSpace(f) == "" {
			continue
		}
		for _, w := range words {
			if at, end := check.Find(w.Text, f, false); at >= 0 {
				h := record.ForbiddenHit{Text: f, Turn: w.Turn, Quote: check.Excerpt(w.Text, at, end-at)}
				if w.Where != observe.ReplyOf(w.Turn) {
					h.Where = w.Where
				}
				hits = append(hits, h)
			}
		}
	}
	return hits
}
