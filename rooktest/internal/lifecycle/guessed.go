package lifecycle

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"path/filepath"
	"slices"

	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/store"
)

// decideGuessed judges again, at the run's end, every attempt the run's judge decided before
// an audit caught it guessing: the judge is not asked again (it decides nothing once
// caught), so each row it decided becomes Unable to Verify, marked judge_guessed, and the
// verdict is decided again around it. The rows it decided after it was caught were Unable
// to Verify as they were decided.
func (r *Run) decideGuessed(ctx context.Context) error {
	j := r.cfg.Decide.Judge
	if j == nil || j.Guessed() == "" {
		return nil
	}
	r.mu.Lock()
	scs := slices.SortedFunc(maps.Values(r.scenarios), func(a, b *scenario.Scenario) int { return cmp.Compare(a.ID, b.ID) })
	r.mu.Unlock()
	var problems []error
	for _, sc := range scs {
		for n := 1; n <= sc.Repeat; n++ {
			v, err := store.ReadVerdict(attemptDir(filepath.Join(r.Dir, "scenarios", sc.ID), n, sc.Repeat))
			if err != nil || v.CarriedFrom != "" || v.Judge == nil || v.Judge.Model != j.Model() {
				continue // not judged by this judge in this run, or untrusted and counting nothing already
			}
			stale := false
			for _, row := range v.Criteria {
				stale = stale || row.Judge != "" && !row.JudgeGuessed
			}
			if stale {
				_, _, _, _, err := r.judgeAgain(ctx, sc, n, "at the run's end: the judge was caught guessing ("+j.Guessed()+")")
				problems = append(problems, err)
			}
		}
	}
	return errors.Join(problems...)
}
