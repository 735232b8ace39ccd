package lifecycle

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/judge"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/spec"
)

// Finish writes report.yaml and the final run.yaml. The totals come from the records of
// every planned scenario, so a run continued over several processes reports all of it.
func (r *Run) Finish(now time.Time) (*record.Report, error) {
	rep := &record.Report{RunID: r.ID, Agent: r.cfg.Agent, Profile: r.cfg.Profile.ID, Generated: now.UTC(),
		Clusters: []record.Cluster{}}
	t := &rep.Totals
	r.mu.Lock()
	included := append([]record.Entry(nil), r.file.Included...)
	t.Unrunnable = len(r.file.Unrunnable)
	t.CarriedForward = len(r.file.Carried)
	rep.Prepare = r.prepareSummary()
	r.mu.Unlock()
	t.Planned = len(included)
	var latencies []int64
	var problems []error
	var judged []judgedScenario
	for _, e := range included {
		dir := filepath.Join(r.Dir, "scenarios", e.ScenarioID)
		if _, err := os.Stat(dir); err != nil {
			continue // not run
		}
		t.Executed++
		vp, err := record.ReadVerdict(dir)
		if errors.Is(err, fs.ErrNotExist) {
			t.Unjudged++
			continue
		}
		if err != nil {
			problems = append(problems, err)
			t.Unjudged++
			continue
		}
		v := *vp
		switch v.Status {
		case judge.Pass:
			t.Passed++
		case judge.Fail:
			t.Failed++
		case judge.UnableToVerify:
			t.Unverifiable++
		default:
			t.Unjudged++
		}
		judged = append(judged, judgedScenario{dir: dir, verdict: v})
		latencies = append(latencies, v.LatencyMs)
		rep.Metrics.TurnsTotal += v.Turns
		rep.Metrics.CriteriaDecided += v.PassCount + v.FailCount
		if v.Usage != nil {
			rep.Metrics.TokensIn += v.Usage.Input
			rep.Metrics.TokensOut += v.Usage.Output
		}
	}
	t.NotRun = t.Planned - t.Executed
	t.Decided = t.Passed + t.Failed
	if t.Decided > 0 {
		t.PassRate = float64(t.Passed) / float64(t.Decided)
	}
	rep.Metrics.DurationMs = now.Sub(r.started).Milliseconds()
	rep.Metrics.LatencyP50Ms = percentile(latencies, 50)
	rep.Metrics.LatencyP95Ms = percentile(latencies, 95)
	rep.Clusters = clusters(judged)
	problems = append(problems, t.Check()) // every run the tests make checks them
	r.mu.Lock()
	r.file.Finished = now.UTC()
	r.mu.Unlock()
	problems = append(problems, r.writeRunFile(), r.cfg.Redactor.YAML(filepath.Join(r.Dir, "report.yaml"), rep))
	problems = append(problems, writeHTML(r.Dir))
	return rep, errors.Join(problems...)
}

// writeHTML writes report.html beside report.yaml: the run as a page, compared with the
// profile's previous run.
func writeHTML(dir string) error {
	page, err := report.Build(dir, report.Previous(dir))
	if err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	var b bytes.Buffer
	if err := page.HTML(&b); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	return record.WriteFile(filepath.Join(dir, "report.html"), b.Bytes())
}

// prepareSummary says what became of prepare; r.mu is held.
func (r *Run) prepareSummary() record.PrepareSummary {
	s := record.PrepareSummary{Status: "not_run", Attempts: r.file.PrepareAttempts}
	switch {
	case !hasHook(r.cfg.Profile, spec.Prepare):
		s.Status = "not_defined"
	case r.file.Prepare != nil && r.file.Prepare.OK:
		s.Status = "ok"
	case r.file.Prepare != nil:
		s.Status = "failed"
	}
	if s.Attempts == 0 && r.file.Prepare != nil {
		s.Attempts = 1
	}
	return s
}

func hasHook(p *spec.Profile, ph spec.Phase) bool {
	_, ok := p.Hooks[ph]
	return ok
}

// percentile is the nearest-rank percentile of xs.
func percentile(xs []int64, p int) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]int64(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := (p*len(s) + 99) / 100
	return s[max(rank, 1)-1]
}

type judgedScenario struct {
	dir     string
	verdict record.Verdict
}

// clusters groups the scenarios that did not pass by what they share, as Rook's reports
// do: failed ones by feature and first failing criterion (or forbidden text, or the hook
// that failed), Unable to Verify ones by reason. Clusters are numbered CL-01... in plan
// order; the report always has the list, empty when every judged scenario passed.
func clusters(judged []judgedScenario) []record.Cluster {
	out := []record.Cluster{}
	index := map[string]int{}
	for _, j := range judged {
		v := j.verdict
		var snap struct {
			Title     string `yaml:"title"`
			FeatureID string `yaml:"feature_id"`
		}
		if data, err := os.ReadFile(filepath.Join(j.dir, "snapshot.yaml")); err == nil {
			_ = yaml.Unmarshal(data, &snap) // a snapshot that does not parse leaves the title empty
		}
		kind, why, summary := clusterOf(v, snap.FeatureID)
		if kind == "" {
			continue
		}
		key := kind + "\x00" + why
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, record.Cluster{ID: fmt.Sprintf("CL-%02d", i+1), Kind: kind, Why: why, FeatureID: snap.FeatureID})
		}
		out[i].Scenarios = append(out[i].Scenarios, record.ClusterScenario{ScenarioID: v.ScenarioID, Title: snap.Title, Summary: summary})
	}
	return out
}

// clusterOf says which cluster a verdict belongs to, and a one-line summary of it.
func clusterOf(v record.Verdict, feature string) (kind, why, summary string) {
	in := ""
	if feature != "" {
		in = " in " + feature
	}
	switch v.Status {
	case judge.Fail:
		for _, row := range v.Criteria {
			if row.Status == judge.Fail {
				return "failed", fmt.Sprintf("the same criterion failed%s (%s)", in, row.CriterionID), row.Achieved
			}
		}
		if len(v.ForbiddenHits) > 0 {
			return "failed", "forbidden text appeared" + in, fmt.Sprintf("%q appeared in turn %d", v.ForbiddenHits[0].Text, v.ForbiddenHits[0].Turn)
		}
		return "failed", "a hook failed" + in, v.Failure
	case judge.UnableToVerify:
		for _, row := range v.Criteria {
			if row.Status == judge.UnableToVerify {
				return "unverifiable", "Unable to Verify (" + v.UnverifiableReason + ")" + in, row.Achieved
			}
		}
		return "unverifiable", "Unable to Verify (" + v.UnverifiableReason + ")" + in, ""
	}
	return "", "", ""
}
