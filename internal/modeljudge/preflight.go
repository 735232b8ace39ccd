package modeljudge

import (
	"context"
	"fmt"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// preflightCase is a question whose grounded answer is certain: a server that cannot
// answer it in the protocol cannot be trusted with the run's criteria.
var preflightCase = Case{
	ScenarioID: "PREFLIGHT",
	Title:      "the judge answers in the protocol",
	Goal:       "When will my parcel ship?",
	Criteria:   []Criterion{{ID: "P1", Statement: "The agent's reply names the day the parcel ships."}},
	Evidence: observe.Said(observe.Given{Calls: []record.Call{},
		Input: "When will my parcel ship?", Output: "Your parcel ships on Friday from the Leeds warehouse."}),
}

// Preflight asks the preflight question once per run, when preflight is on; its
// error, if any, is the reason every llm_judge row of the run is Unable to Verify.
func (j *Judge) Preflight(ctx context.Context) error {
	if len(j.members) > 0 {
		return j.panelPreflight(ctx)
	}
	if !j.cfg.Preflight {
		return nil
	}
	j.preflight.Do(func() {
		g := groundsOf(preflightCase, j.cfg.Redact)
		user, _ := prompt(preflightCase, j.cfg.Budget)
		s := j.ask(ctx, user, 1).samples[0]
		err := s.err
		if err == nil {
			var a *answer
			if a, err = parse(s.content); err == nil {
				r := decide(a, preflightCase.Criteria, g)["P1"]
				if r.Status != record.Pass {
					err = fmt.Errorf("its answer was %s (%s), not a grounded Pass", r.Status, r.Achieved)
				}
			}
		}
		if err != nil {
			j.preflightFail = fmt.Errorf("the judge at %s (model %s) failed the preflight check, so it decides nothing in this run: %v", j.URL(), j.cfg.Model, err)
		}
	})
	return j.preflightFail
}

// PreflightError says why the judge failed its preflight check, once it has run; nil when
// it passed, was not asked, or has not run yet.
func (j *Judge) PreflightError() error {
	return j.preflightFail
}
