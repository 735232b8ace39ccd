package lifecycle

import (
	"math"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/judge"
	"github.com/rookgo/rookgo/internal/spec"
)

// judge decides the attempt from its records, or reads the verdict an earlier process
// wrote when nothing ran since.
func (a *attemptRun) judge(res *Attempt) {
	path := filepath.Join(a.dir, "verdict.yaml")
	if !a.ranNow {
		if data, err := os.ReadFile(path); err == nil {
			var v Verdict
			if err := yaml.Unmarshal(data, &v); err == nil && v.Status != "" {
				res.Judged, res.Status, res.Reason, res.Rows, res.Hits = true, v.Status, v.UnverifiableReason, v.Criteria, v.ForbiddenHits
				subtests(a.sc, res.Rows)
				return
			}
		}
	}
	ev, _, _ := a.evidence()
	res.Rows = judge.Evaluate(a.sc.Criteria, ev)
	res.Hits = judge.Forbidden(a.sc.Forbidden, ev)
	res.Status, res.Reason = judge.ScenarioStatus(res.Rows, res.Hits, len(a.sc.Forbidden) > 0 && ev.AgentRan)
	fails, _ := a.failures()
	if len(fails) > 0 {
		res.Status, res.Reason = judge.Fail, ""
	}
	res.Judged = true
	v := Verdict{ScenarioID: a.sc.ID, RunID: a.r.ID, Status: res.Status, UnverifiableReason: res.Reason,
		Criteria: nonNil(res.Rows), ForbiddenHits: nonNil(res.Hits), Turns: len(ev.Turns), Usage: ev.Usage}
	for _, t := range ev.Turns {
		v.LatencyMs += t.LatencyMs
	}
	var msgs []string
	for _, f := range fails {
		msgs = append(msgs, f.Error())
	}
	v.Failure = strings.Join(msgs, "; ")
	countRows(&v, res.Rows)
	a.record(a.r.cfg.Redactor.YAML(path, v))
}

// subtests names rows read back from a verdict as the scenario's criteria name them.
func subtests(sc *spec.Scenario, rows []judge.Row) {
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

// countRows fills in a verdict's counts; Rook's compliance is over the decided criteria.
func countRows(v *Verdict, rows []judge.Row) {
	v.PassCount, v.FailCount, v.UnableToVerifyCount = 0, 0, 0
	for _, r := range rows {
		switch r.Status {
		case judge.Pass:
			v.PassCount++
		case judge.Fail:
			v.FailCount++
		default:
			v.UnableToVerifyCount++
		}
	}
	// Rook's compliance is over the decided criteria: Unable to Verify is in neither part.
	v.CompliancePercentage = 0
	if decided := v.PassCount + v.FailCount; decided > 0 {
		v.CompliancePercentage = int(math.Round(float64(v.PassCount) * 100 / float64(decided)))
	}
}
