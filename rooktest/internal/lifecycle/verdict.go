package lifecycle

import (
	"context"
	"math"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/judge"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// judge decides the attempt from its records, or reads the verdict an earlier process
// wrote when nothing ran since.
// A verdict whose llm_judge rows another judge decided (or none did) is decided again:
// configure a model, then -rook.run=<id> -rook.phases=judge judges a finished run.
func (a *attemptRun) judge(ctx context.Context, res *Attempt) {
	if !a.ranNow {
		// ReadVerdict refuses a verdict that does not match the hooks.json beside it.
		// A verdict with a row the judge never answered is judged again: the judge may answer now.
		if v, err := store.ReadVerdict(a.dir); err == nil && v.Status != "" && (!a.hasLLM() || sameJudge(v.Judge, a.r.cfg.Judge)) && !v.Unanswered() {
			subtests(a.sc, v.Criteria)
			res.Verdict = v
			return
		}
	}
	ev, _, _ := a.evidence()
	a.probe(ctx, ev)
	rows := judge.Evaluate(a.sc.Criteria, ev, a.sc.Turns())
	info, err := a.askModel(ctx, rows, ev)
	a.record(err)
	judge.Require(a.sc.Criteria, rows)
	hits := judge.Forbidden(a.sc.Forbidden, ev)
	status, reason := judge.ScenarioStatus(rows, hits, len(a.sc.Forbidden) > 0 && ev.AgentRan)
	fails, _ := a.failures()
	if len(fails) > 0 {
		status, reason = record.Fail, ""
	}
	v := record.Verdict{ScenarioID: a.sc.ID, RunID: a.r.ID, Status: status, UnverifiableReason: reason,
		Criteria: nonNil(rows), ForbiddenHits: nonNil(hits), Turns: len(ev.Turns), Usage: ev.Usage(), Judge: info}
	for _, t := range ev.Turns {
		v.LatencyMs += t.LatencyMs
	}
	var msgs []string
	for _, f := range fails {
		msgs = append(msgs, f.Error())
	}
	v.Failure = strings.Join(msgs, "; ")
	countRows(&v, rows)
	a.attack(&v, ev)
	res.Verdict = &v
	a.record(a.r.cfg.Redactor.WriteVerdict(a.dir, &v))
}

func (a *attemptRun) hasLLM() bool {
	return a.sc.Observes().Has(check.ObservesModel)
}

// subtests names rows read back from a verdict as the scenario's criteria name them.
func subtests(sc *spec.Scenario, rows []record.Row) {
	for i := range rows {
		for _, c := range sc.Criteria {
			if c.ID == rows[i].CriterionID {
				rows[i].Subtest = c.Subtest()
			}
		}
		if rows[i].Subtest == "" {
			rows[i].Subtest = rows[i].CriterionID
		}
	}
}

// countRows fills in a verdict's counts; Rook's compliance is over the decided criteria.
func countRows(v *record.Verdict, rows []record.Row) {
	v.PassCount, v.FailCount, v.UnableToVerifyCount = 0, 0, 0
	for _, r := range rows {
		switch r.Status {
		case record.Pass:
			v.PassCount++
		case record.Fail:
			v.FailCount++
		default:
			v.UnableToVerifyCount++
		}
	}
	// Rook's compliance is over the decided criteria: Unable to Verify is in neither part.
	v.CompliancePercentage = 0
	if decided := v.PassCount + v.FailCount; decided > 0 {
		v.CompliancePercentage = int(math.Round(float64(v.PassCount) * 100 / float64(decided)))
	}
}
