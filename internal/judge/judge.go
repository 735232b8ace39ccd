// Package judge decides a scenario attempt from its recorded evidence: every acceptance
// criterion by its check, the forbidden text, and the scenario's status from both.
package judge

import (
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// Evaluate judges every criterion against the evidence, in order.
func Evaluate(criteria []spec.Criterion, ev *check.Evidence) []record.Row {
	rows := make([]record.Row, 0, len(criteria))
	for i := range criteria {
		c := &criteria[i]
		res := check.Decide(c.Check, ev)
		r := record.Row{CriterionID: c.ID, Criterion: c.Statement, Check: c.Kind, Subtest: c.Subtest(), Expected: c.Expected(),
			Achieved: res.Achieved, Status: res.Status, Reason: res.Reason, Evidence: res.Evidence, Confidence: res.Confidence}
		if r.Criterion == "" {
			r.Criterion = c.Kind
		}
		rows = append(rows, r)
	}
	return rows
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
