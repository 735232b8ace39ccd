package lifecycle

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// lateSpans takes in the spans that arrived after their attempt's trace was settled, at
// the run's end (its last exporters waited for): each joins its attempt's traces.json,
// marked late, and the trace is then incomplete, since more may have come after the run
// ended. An attempt this process judged is decided again from its records with them, so
// that a late span can turn a Pass into Unable to Verify, or into a Fail where it shows a
// forbidden call or the canary; run.yaml and report.yaml list them with what changed.
func (r *Run) lateSpans(ctx context.Context) error {
	if r.cfg.Traces == nil {
		return nil
	}
	late := r.cfg.Traces.Late()
	slices.SortFunc(late, func(a, b record.LateSpans) int {
		return cmp.Or(cmp.Compare(a.ScenarioID, b.ScenarioID), cmp.Compare(a.Attempt, b.Attempt))
	})
	var errs []error
	for i := range late {
		errs = append(errs, r.decideAgain(ctx, &late[i]))
		late[i].Kept = nil // in traces.json now
	}
	r.mu.Lock()
	r.file.LateSpans = late
	r.mu.Unlock()
	return errors.Join(errs...)
}

// decideAgain adds an attempt's late spans to its trace and, when the attempt was judged,
// judges it again (and its scenario, when it repeats), saying in l what changed.
func (r *Run) decideAgain(ctx context.Context, l *record.LateSpans) error {
	r.mu.Lock()
	sc := r.scenarios[l.ScenarioID]
	r.mu.Unlock()
	if sc == nil {
		l.NotDecided = "the scenario is not in this run"
		return nil
	}
	scDir := filepath.Join(r.Dir, "scenarios", sc.ID)
	dir := attemptDir(scDir, l.Attempt, sc.Repeat)
	path := filepath.Join(dir, "evidence", tracesFile)
	t, err := readTrace(path)
	if err != nil {
		l.NotDecided = fmt.Sprintf("its %s could not be read", tracesFile)
		return fmt.Errorf("add the late spans of %s attempt %d to its trace: %w", sc.ID, l.Attempt, err)
	}
	for _, sp := range l.Kept {
		sp.Late = true
		t.Spans = append(t.Spans, sp)
	}
	why := fmt.Sprintf("%d span(s) arrived after the attempt was judged, and more may have come after the run ended", l.Spans)
	if l.Dropped > 0 {
		why += fmt.Sprintf(" (%d of them over the trace's bounds, not kept)", l.Dropped)
	}
	t.Incomplete = joinWhy(t.Incomplete, why)
	if err := r.cfg.Redactor.JSON(path, t); err != nil {
		l.NotDecided = fmt.Sprintf("its %s could not be written", tracesFile)
		return fmt.Errorf("add the late spans of %s attempt %d to its trace: %w", sc.ID, l.Attempt, err)
	}
	was, err := store.ReadVerdict(scDir)
	if err != nil || was.Status == "" {
		l.NotDecided = "it was not judged in this process: they are in its trace for the judge"
		return nil
	}
	before, _ := store.ReadVerdict(dir)
	note := fmt.Sprintf("at the run's end, with %d span(s) of its trace that arrived after it was first judged (%s); it was %s", l.Spans, strings.Join(l.Names, ", "), before.Status)
	o := &Outcome{Scenario: sc, Dir: scDir}
	for n := 1; n <= sc.Repeat; n++ {
		if n == l.Attempt {
			o.Attempts = append(o.Attempts, r.attempt(ctx, sc, n, nil, note))
			continue
		}
		v, err := store.ReadVerdict(attemptDir(scDir, n, sc.Repeat))
		if err != nil {
			v = nil
		}
		o.Attempts = append(o.Attempts, &Attempt{ScenarioID: sc.ID, N: n, Verdict: v})
	}
	again := o.Attempts[l.Attempt-1]
	r.aggregate(o)
	if o.Verdict == nil {
		l.NotDecided = cmp.Or(again.NotJudged, "an attempt of the scenario has no verdict")
		return again.RecordErr
	}
	if sc.Repeat > 1 {
		o.Verdict.DecidedAgain = fmt.Sprintf("attempt %d %s", l.Attempt, note)
		again.RecordErr = errors.Join(again.RecordErr, r.cfg.Redactor.WriteVerdict(scDir, o.Verdict))
	}
	l.Was, l.Now = was.Status, o.Verdict.Status
	l.Changed = changedRows(before, again.Verdict)
	return again.RecordErr
}

// changedRows names the rows whose status differs between two verdicts of one attempt:
// "NO-REFUND (not_called): Pass → Fail".
func changedRows(before, now *record.Verdict) []string {
	if before == nil || now == nil {
		return nil
	}
	was := map[string]record.Status{}
	for _, row := range before.Criteria {
		was[row.CriterionID] = row.Status
	}
	var out []string
	for _, row := range now.Criteria {
		if s, ok := was[row.CriterionID]; ok && s != row.Status {
			out = append(out, fmt.Sprintf("%s (%s): %s → %s", row.CriterionID, row.Check, s, row.Status))
		}
	}
	return out
}
