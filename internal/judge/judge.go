// Package judge decides a scenario attempt from its recorded evidence: every acceptance
// criterion by its check, the forbidden text, and the scenario's status from both.
package judge

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// Evaluate judges every criterion against the evidence, in order.
func Evaluate(criteria []spec.Criterion, ev *check.Evidence, turns int) []record.Row {
	rows := make([]record.Row, 0, len(criteria))
	for i := range criteria {
		c := &criteria[i]
		res, turn := decide(c, ev, turns)
		r := record.Row{CriterionID: c.ID, Criterion: c.Statement, Check: c.Kind, Subtest: c.Subtest(), Expected: c.Expected(),
			Achieved: res.Achieved, Status: res.Status, Reason: res.Reason, Evidence: res.Evidence, Confidence: res.Confidence, Turn: turn}
		if r.Criterion == "" {
			r.Criterion = c.Kind
		}
		rows = append(rows, r)
	}
	return rows
}

// decide judges one criterion: on the turn it is about, when it names one (turns is the
// scenario's number of turns, for turn: last), else on every turn. turn says which, ""
// for every turn.
func decide(c *spec.Criterion, ev *check.Evidence, turns int) (check.Result, string) {
	if c.Turn == 0 {
		return check.Decide(c.Check, ev), ""
	}
	n, turn := c.Turn, strconv.Itoa(c.Turn)
	if n == spec.LastTurn {
		n, turn = turns, fmt.Sprintf("last (%d)", turns)
	}
	view, why := ev.OnlyTurn(n)
	if view == nil {
		return check.Result{Status: record.UnableToVerify, Reason: record.AgentNeverRan, Achieved: why, Confidence: "High"}, turn
	}
	return check.Decide(c.Check, view), turn
}

// Forbidden returns every forbidden text that appears in an agent turn (case-insensitive).
func Forbidden(forbidden []string, ev *check.Evidence) []record.ForbiddenHit {
	var hits []record.ForbiddenHit
	for _, f := range forbidden {
		if strings.TrimSpace(f) == "" {
			continue
		}
		for i, t := range ev.Turns {
			if at, end := check.Find(t.Output, f, false); at >= 0 {
				hits = append(hits, record.ForbiddenHit{Text: f, Turn: i + 1, Quote: check.Excerpt(t.Output, at, end-at)})
			}
		}
	}
	return hits
}
