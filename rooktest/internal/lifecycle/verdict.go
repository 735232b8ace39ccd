package lifecycle

import (
	"context"
	"path/filepath"

	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// judge decides the attempt from its records, or reads the verdict an earlier process
// wrote when nothing ran since: it observes (the records, then the MCP probes asked
// now), decides, and writes.
// A verdict whose llm_judge rows another judge decided (or none did) is decided again:
// configure a model, then -rook.run=<id> -rook.phases=judge judges a finished run.
func (a *attemptRun) judge(ctx context.Context, res *Attempt) {
	dc := a.r.cfg.Decide
	if !a.ranNow {
		// ReadVerdict refuses a verdict that does not match the hooks.json beside it.
		// A verdict with a row the judge never answered is judged again: the judge may answer now.
		if v, err := store.ReadVerdict(a.dir); err == nil && v.Status != "" && (!decide.HasModelCriteria(a.sc) || dc.SameJudge(v.Judge)) && !v.Unanswered() {
			subtests(a.sc, v.Criteria)
			res.Verdict = v
			return
		}
	}
	a.probe(ctx)
	obs := a.observe()
	fails, _ := a.failures()
	in := decide.Input{Scenario: a.sc, RunID: a.r.ID, Observed: obs, Canary: a.hooks.Canary, Unplanted: a.hooks.CanaryUnplanted,
		Unchecked: len(a.r.cfg.Profile.CanaryFixtures) == 0, WriteTools: a.r.cfg.Profile.WriteTools}
	for _, f := range fails {
		in.Failures = append(in.Failures, f.Error())
	}
	out := dc.Attempt(ctx, in)
	red := a.r.cfg.Redactor
	if out.Request != nil {
		a.record(red.Bytes(filepath.Join(a.dir, "evidence", "judge-request.json"), out.Request))
	}
	if out.Response != nil {
		a.record(red.Bytes(filepath.Join(a.dir, "evidence", "judge-response.json"), out.Response))
	}
	res.Verdict = &out.Verdict
	a.record(red.WriteVerdict(a.dir, &out.Verdict))
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
