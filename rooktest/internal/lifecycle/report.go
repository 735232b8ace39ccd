package lifecycle

import (
	"cmp"
	"errors"
	"path/filepath"
	"slices"
	"time"

	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/summary"
)

// Finish writes report.yaml and the final run.yaml (report.html is the caller's to
// write, from these records). The totals come from the records of
// every planned scenario, so a run continued over several processes reports all of it.
func (r *Run) Finish(now time.Time) (*record.Report, error) {
	r.lateSpans()
	guessErr := r.markGuessed()
	r.mu.Lock()
	file := r.file
	file.Included = slices.Clone(r.file.Included)
	prepare := r.prepareSummary()
	r.file.Finished = now.UTC()
	r.mu.Unlock()
	rep, err := summary.Summarize(r.Dir, file, prepare, now.Sub(r.started), now)
	rep.LateSpans = file.LateSpans
	problems := []error{err, guessErr, rep.Totals.Check()} // every run the tests make checks them
	problems = append(problems, r.writeRunFile(), r.cfg.Redactor.YAML(filepath.Join(r.Dir, "report.yaml"), rep))
	return rep, errors.Join(problems...)
}

// lateSpans records the attempts whose spans arrived after they were judged, and names
// the criteria those spans could have changed.
func (r *Run) lateSpans() {
	if r.cfg.Traces == nil {
		return
	}
	late := r.cfg.Traces.Late()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range late {
		if sc := r.scenarios[late[i].ScenarioID]; sc != nil {
			late[i].CouldChange = decide.CouldChange(sc, late[i])
		}
	}
	slices.SortFunc(late, func(a, b record.LateSpans) int {
		return cmp.Or(cmp.Compare(a.ScenarioID, b.ScenarioID), cmp.Compare(a.Attempt, b.Attempt))
	})
	r.file.LateSpans = late
}

// prepareSummary says what became of prepare; r.mu is held.
func (r *Run) prepareSummary() record.PrepareSummary {
	return r.file.PrepareSummary(hasHook(r.cfg.Profile, spec.Prepare))
}

func hasHook(p *spec.Profile, ph spec.Phase) bool {
	_, ok := p.Hooks[ph]
	return ok
}
