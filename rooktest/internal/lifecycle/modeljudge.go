package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/record"
)

// Confidence ranks, for -rook.min-confidence.
var confidenceRank = map[string]int{"Low": 1, "Medium": 2, "High": 3}

// maxFileText bounds what of one copied evidence file goes to the judge.
const maxFileText = 1 << 20

// askModel has the run's model judge decide the attempt's llm_judge rows, in one request
// for all of them, and keeps the exchange under evidence/. Rows stay as they are (Unable
// to Verify, no judge model configured) when no judge is configured.
func (a *attemptRun) askModel(ctx context.Context, rows []record.Row, ev *check.Evidence) (*record.JudgeInfo, error) {
	mj := a.r.cfg.Judge
	if mj == nil {
		return nil, nil
	}
	c := modeljudge.Case{ScenarioID: a.sc.ID, Title: a.sc.Title, Goal: a.sc.Goal, Context: rookContext(a.sc.Source), Evidence: ev}
	index := map[string]int{}
	for i, cr := range a.sc.Criteria {
		if cr.Check.Observes().Has(check.ObservesModel) {
			c.Criteria = append(c.Criteria, modeljudge.Criterion{ID: cr.ID, Statement: cr.Statement})
			index[cr.ID] = i
		}
	}
	qs, asked := a.signalQuestions()
	c.Criteria = append(c.Criteria, qs...)
	if len(c.Criteria) == 0 {
		return nil, nil
	}
	c.Files = a.evidenceFiles()
	d := mj.Decide(ctx, c)
	var errs []error
	if d.Request != nil {
		errs = append(errs, a.r.cfg.Redactor.Bytes(filepath.Join(a.dir, "evidence", "judge-request.json"), d.Request))
	}
	if d.Response != nil {
		errs = append(errs, a.r.cfg.Redactor.Bytes(filepath.Join(a.dir, "evidence", "judge-response.json"), d.Response))
	}
	model := d.Info.ReportedModel
	if model == "" {
		model = d.Info.Model
	}
	a.signals = judgedSignals(d.Results, asked, model)
	for id, i := range index {
		res := d.Results[id]
		row := &rows[i]
		row.Status, row.Reason, row.Achieved, row.Evidence, row.Confidence, row.Judge, row.Unanswered =
			res.Status, res.Reason, res.Achieved, res.Evidence, res.Confidence, model, res.Unanswered
		row.QuotesFrom, row.Agreement = res.Found, res.Agreement
		row.Tier = ""
		for _, from := range res.Found {
			if t := check.QuoteTier(from); check.TierRank(t) > check.TierRank(row.Tier) {
				row.Tier = t // the strongest evidence the judge quoted
			}
		}
		if res.Expected != "" {
			row.Expected = res.Expected
		}
		if min := a.r.cfg.MinConfidence; row.Status != record.UnableToVerify && confidenceRank[row.Confidence] < confidenceRank[min] {
			row.Achieved = fmt.Sprintf("the judge decided %s with %s confidence, below -rook.min-confidence=%s: %s", row.Status, row.Confidence, min, row.Achieved)
			row.Status, row.Reason = record.UnableToVerify, record.Undecidable
		}
		a.calibrated(row)
	}
	return &d.Info, errors.Join(errs...)
}

// Calibration is how far the judge agrees with people on one criterion: Agree of N
// labelled rows.
type Calibration struct{ Agree, N int }

// calibrated says the row's calibration, and under -rook.min-agreement turns a decision on a
// criterion the judge agrees with people on too rarely (or was never labelled) into Unable
// to Verify.
func (a *attemptRun) calibrated(row *record.Row) {
	key := a.sc.ID + "/" + row.CriterionID
	cal, ok := a.r.cfg.Calibration[key]
	if ok {
		row.Calibration = fmt.Sprintf("agrees with people %d of %d", cal.Agree, cal.N)
	}
	min := a.r.cfg.MinAgreement
	if min <= 0 || row.Status == record.UnableToVerify {
		return
	}
	switch {
	case !ok || cal.N == 0:
		row.Achieved = fmt.Sprintf("the judge decided %s, but no row of %s is labelled in %s, and -rook.min-agreement=%.2f asks for the judge's agreement with people: %s",
			row.Status, key, a.r.cfg.LabelsPath, min, row.Achieved)
	case float64(cal.Agree) < min*float64(cal.N):
		row.Achieved = fmt.Sprintf("the judge decided %s, but it agrees with people on %s in %d of %d labelled rows (%.2f), below -rook.min-agreement=%.2f: %s",
			row.Status, key, cal.Agree, cal.N, float64(cal.Agree)/float64(cal.N), min, row.Achieved)
	default:
		return
	}
	row.Status, row.Reason = record.UnableToVerify, record.Undecidable
}

// rookContext is what of the scenario file's other keys tells a judge what the criteria
// mean: Rook's why, preconditions, expected outcome and verification needs.
func rookContext(source []byte) map[string]any {
	var all map[string]any
	if yaml.Unmarshal(source, &all) != nil {
		return nil
	}
	out := map[string]any{}
	for _, k := range []string{"why", "preconditions", "expected", "verification", "verification_requires", "output_kind"} {
		if v, ok := all[k]; ok && v != nil {
			if s, isList := v.([]any); isList && len(s) == 0 {
				continue
			}
			out[k] = v
		}
	}
	return out
}

// copyPrefix is what copyEvidence puts before the hook's own name of an evidence file.
var copyPrefix = regexp.MustCompile(`^(attempt-\d+-)?\d{2}-`)

// evidenceFiles reads the attempt's copied evidence files, each bounded, named as the
// records name them and as the hook did.
func (a *attemptRun) evidenceFiles() []modeljudge.File {
	var files []modeljudge.File
	for _, rel := range a.artifacts() {
		path := rel
		if !filepath.IsAbs(path) {
			path = filepath.Join(a.r.cfg.Workspace, rel)
		}
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, maxFileText))
		_ = f.Close() // read only
		if err == nil {
			name := filepath.Base(path)
			files = append(files, modeljudge.File{Name: name, Reported: copyPrefix.ReplaceAllString(name, ""), Text: string(b)})
		}
	}
	return files
}

// sameJudge reports whether a stored verdict was decided by the judge configured now, so
// that it need not be decided again.
func sameJudge(stored *record.JudgeInfo, now *modeljudge.Judge) bool {
	switch {
	case stored == nil && now == nil:
		return true
	case stored == nil || now == nil:
		return false
	}
	return stored.Model == now.Model() && stored.URL == now.URL()
}
