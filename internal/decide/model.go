package decide

import (
	"context"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/record"
)

// Confidence ranks, for -rook.min-confidence.
var confidenceRank = map[string]int{"Low": 1, "Medium": 2, "High": 3}

// modelResult is what the model judge gave an attempt: its info, its exchange, and its
// decisions of the scenario's free-text red-team signals.
type modelResult struct {
	info              *record.JudgeInfo
	request, response []byte
	signals           map[string]record.SignalResult
}

// askModel has the run's model judge decide the attempt's llm_judge rows, in one request
// for all of them (and the scenario's free-text red-team signals). Rows stay as they are
// (Unable to Verify, no judge model configured) when no judge is configured.
func (c Config) askModel(ctx context.Context, in Input, rows []record.Row) modelResult {
	mj, sc := c.Judge, in.Scenario
	if mj == nil {
		return modelResult{}
	}
	mc := modeljudge.Case{ScenarioID: sc.ID, Title: sc.Title, Goal: sc.Goal, Context: rookContext(sc.Source), Evidence: in.Observed}
	index := map[string]int{}
	for i, cr := range sc.Criteria {
		if cr.Check.Observes().Has(check.ObservesModel) {
			mc.Criteria = append(mc.Criteria, modeljudge.Criterion{ID: cr.ID, Statement: cr.Statement})
			index[cr.ID] = i
		}
	}
	qs, asked := signalQuestions(sc)
	mc.Criteria = append(mc.Criteria, qs...)
	if len(mc.Criteria) == 0 {
		return modelResult{}
	}
	for _, f := range in.Observed.Files().Value {
		mc.Files = append(mc.Files, modeljudge.File{Name: f.Name, Reported: f.Reported, Text: f.Text})
	}
	d := mj.Decide(ctx, mc)
	model := d.Info.ReportedModel
	if model == "" {
		model = d.Info.Model
	}
	out := modelResult{info: &d.Info, request: d.Request, response: d.Response, signals: judgedSignals(d.Results, asked, model)}
	for id, i := range index {
		res := d.Results[id]
		row := &rows[i]
		row.Status, row.Reason, row.Achieved, row.Evidence, row.Confidence, row.Judge, row.Unanswered =
			res.Status, res.Reason, res.Achieved, res.Evidence, res.Confidence, model, res.Unanswered
		row.QuotesFrom, row.Agreement, row.JudgeGuessed = res.Found, res.Agreement, res.Guessed
		row.Tier = ""
		for _, from := range res.Found {
			if t := check.QuoteTier(from); check.TierRank(t) > check.TierRank(row.Tier) {
				row.Tier = t // the strongest evidence the judge quoted
			}
		}
		if res.Expected != "" {
			row.Expected = res.Expected
		}
		if min := c.MinConfidence; row.Status != record.UnableToVerify && confidenceRank[row.Confidence] < confidenceRank[min] {
			row.Achieved = fmt.Sprintf("the judge decided %s with %s confidence, below -rook.min-confidence=%s: %s", row.Status, row.Confidence, min, row.Achieved)
			row.Status, row.Reason = record.UnableToVerify, record.Undecidable
		}
		c.calibrated(sc.ID, row)
	}
	return out
}

// calibrated says the row's calibration, and under -rook.min-agreement turns a decision on a
// criterion the judge agrees with people on too rarely (or was never labelled) into Unable
// to Verify.
func (c Config) calibrated(scenario string, row *record.Row) {
	key := scenario + "/" + row.CriterionID
	cal, ok := c.Calibration[key]
	if ok {
		row.Calibration = fmt.Sprintf("agrees with people %d of %d", cal.Agree, cal.N)
	}
	min := c.MinAgreement
	if min <= 0 || row.Status == record.UnableToVerify {
		return
	}
	switch {
	case !ok || cal.N == 0:
		row.Achieved = fmt.Sprintf("the judge decided %s, but no row of %s is labelled in %s, and -rook.min-agreement=%.2f asks for the judge's agreement with people: %s",
			row.Status, key, c.LabelsPath, min, row.Achieved)
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

// SameJudge reports whether a stored verdict was decided by the judge configured now, so
// that it need not be decided again.
func (c Config) SameJudge(stored *record.JudgeInfo) bool {
	now := c.Judge
	switch {
	case stored == nil && now == nil:
		return true
	case stored == nil || now == nil:
		return false
	}
	return stored.Model == now.Model() && stored.URL == now.URL()
}
