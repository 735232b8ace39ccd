package lifecycle

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"time"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/spec"
)

// Finish writes report.yaml and the final run.yaml (report.html is the caller's to
// write, from these records). The totals come from the records of
// every planned scenario, so a run continued over several processes reports all of it.
//
// Spans that came after their attempt was judged are taken in first (lateSpans): the
// verdicts they change are decided again before anything counts them.
func (r *Run) Finish(ctx context.Context, now time.Time) (*record.Report, error) {
	lateErr := r.lateSpans(ctx)
	guessErr := r.decideGuessed(ctx)
	r.mu.Lock()
	file := r.file
	file.Included = slices.Clone(r.file.Included)
	prepare := r.prepareSummary()
	r.file.Finished = now.UTC()
	r.mu.Unlock()
	rep, err := report.Summarize(r.Dir, file, prepare, now.Sub(r.started), now)
	rep.LateSpans = file.LateSpans
	problems := []error{err, guessErr, lateErr, rep.Totals.Check()} // every run the tests make checks them
	problems = append(problems, r.writeRunFile(), r.cfg.Redactor.YAML(filepath.Join(r.Dir, "report.yaml"), rep))
	return rep, errors.Join(problems...)
}

// prepareSummary says what became of prepare; r.mu is held.
func (r *Run) prepareSummary() record.PrepareSummary {
	return r.file.PrepareSummary(hasHook(r.cfg.Profile, spec.Prepare))
}

func hasHook(p *spec.Profile, ph spec.Phase) bool {
	_, ok := p.Hooks[ph]
	return ok
}
