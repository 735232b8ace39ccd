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
	"github.com/rookgo/rookgo/internal/scenario"
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
	path := filepath.Join(attemptDir(filepath.Join(r.Dir, "scenarios", sc.ID), l.Attempt, sc.Repeat), "evidence", tracesFile)
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
	l.Was, l.Now, l.Changed, l.NotDecided, err = r.judgeAgain(ctx, sc, l.Attempt,
		fmt.Sprintf("at the run's end, with %d span(s) of its trace that arrived after it was first judged (%s)", l.Spans, strings.Join(l.Names, ", ")))
	return err
}

// judgeAgain judges attempt n of sc again from its records (and the scenario, when it
// repeats), saying why in the new verdict (note, to which what it was is added). It
// returns the scenario's status before and after and the attempt's rows that changed, or
// why it was not judged again: it had no verdict (it was judged in another process, if at
// all), or its records could not be judged.
func (r *Run) judgeAgain(ctx context.Context, sc *scenario.Scenario, n int, note string) (was, now record.Status, changed []string, notDecided string, err error) {
	scDir := filepath.Join(r.Dir, "scenarios", sc.ID)
	stored, err := store.ReadVerdict(scDir)
	if err != nil || stored.Status == "" {
		return "", "", nil, "it was not judged in this process: its records are there for the judge", nil
	}
	before, _ := store.ReadVerdict(attemptDir(scDir, n, sc.Repeat))
	note += "; it was " + string(before.Status)
	o := &Outcome{Scenario: sc, Dir: scDir}
	for k := 1; k <= sc.Repeat; k++ {
		if k == n {
			o.Attempts = append(o.Attempts, r.attempt(ctx, sc, k, nil, note))
			continue
		}
		v, err := store.ReadVerdict(attemptDir(scDir, k, sc.Repeat))
		if err != nil {
			v = nil
		}
		o.Attempts = append(o.Attempts, &Attempt{ScenarioID: sc.ID, N: k, Verdict: v})
	}
	again := o.Attempts[n-1]
	r.aggregate(o)
	if o.Verdict == nil {
		return "", "", nil, cmp.Or(again.NotJudged, "an attempt of the scenario has no verdict"), again.RecordErr
	}
	if sc.Repeat > 1 {
		o.Verdict.DecidedAgain = fmt.Sprintf("attempt %d %s", n, note)
		again.RecordErr = errors.Join(again.RecordErr, r.cfg.Redactor.WriteVerdict(scDir, o.Verdict))
	}
	return stored.Status, o.Verdict.Status, changedRows(before, again.Verdict), "", again.RecordErr
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
