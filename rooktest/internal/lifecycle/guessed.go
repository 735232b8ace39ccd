package lifecycle

import (
	"errors"
	"path/filepath"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// markGuessed marks judge_guessed every row the run's judge decided before an audit caught
// it guessing (the rows it decided after are marked as they are decided): a repeated
// scenario's attempts and its whole verdict alike.
func (r *Run) markGuessed() error {
	j := r.cfg.Decide.Judge
	if j == nil || j.Guessed() == "" {
		return nil
	}
	verdicts, err := filepath.Glob(filepath.Join(r.Dir, "scenarios", "*", "verdict.yaml"))
	if err != nil {
		return err
	}
	attempts, err := filepath.Glob(filepath.Join(r.Dir, "scenarios", "*", "attempts", "*", "verdict.yaml"))
	if err != nil {
		return err
	}
	var problems []error
	for _, path := range append(verdicts, attempts...) {
		dir := filepath.Dir(path)
		v, err := store.ReadVerdict(dir)
		if err != nil || v.CarriedFrom != "" || v.Judge == nil || v.Judge.Model != j.Model() {
			continue // not judged by this judge in this run, or untrusted and counting nothing already
		}
		marked := false
		for i := range v.Criteria {
			row := &v.Criteria[i]
			if row.Judge != "" && !row.JudgeGuessed && (row.Status == record.Pass || row.Status == record.Fail) {
				row.JudgeGuessed, marked = true, true
			}
		}
		if marked {
			problems = append(problems, r.cfg.Redactor.WriteVerdict(dir, v))
		}
	}
	return errors.Join(problems...)
}
