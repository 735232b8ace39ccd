package report

// report.yaml: the totals, the metrics and the clusters. The engine writes it after every
// run, rookgen report -merge after joining shards, and rookgen report reads what it wrote;
// none of them computes totals another way.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// Summarize computes report.yaml for the run in dir from its records: run's plan, and the
// verdict of every scenario it planned. prepare says what became of the run's prepare;
// took is the run's wall time. A run continued over several processes, or merged from
// shards, is summarized whole. A verdict that does not read counts as not judged, and is
// returned as an error beside the report.
func Summarize(dir string, run record.Run, prepare record.PrepareSummary, took time.Duration, now time.Time) (*record.Report, error) {
	rep := &record.Report{RunID: run.ID, Agent: run.Agent, Profile: run.Pins.ProfileID, Generated: now.UTC(),
		Prepare: prepare, Clusters: []record.Cluster{}}
	t := &rep.Totals
	t.Unrunnable = len(run.Unrunnable)
	t.CarriedForward = len(run.Carried)
	t.Planned = len(run.Included)
	var latencies []int64
	var problems []error
	var cl clusterer
	for _, e := range run.Included {
		dir := filepath.Join(dir, "scenarios", e.ScenarioID)
		if _, err := os.Stat(dir); err != nil {
			continue // not run
		}
		t.Executed++
		vp, err := store.ReadVerdict(dir)
		if errors.Is(err, fs.ErrNotExist) {
			t.Unjudged++
			continue
		}
		if err != nil {
			problems = append(problems, err)
			t.Unjudged++
			if errors.Is(err, store.ErrUntrusted) {
				t.Untrusted++
			}
			continue
		}
		v := *vp
		decide.AddToTotals(t, &v)
		if v.Status != record.Pass {
			// Only what did not pass is clustered, filed as it is read: a run keeps each
			// one's line in its cluster, not its verdict.
			cl.add(dir, &v)
		}
		addJudges(rep, dir, &v)
		latencies = append(latencies, v.LatencyMs)
		rep.Metrics.TurnsTotal += v.Turns
		rep.Metrics.CriteriaDecided += v.PassCount + v.FailCount
		if v.Usage != nil && v.Usage.Input != nil {
			rep.Metrics.TokensIn += *v.Usage.Input
		}
		if v.Usage != nil && v.Usage.Output != nil {
			rep.Metrics.TokensOut += *v.Usage.Output
		}
	}
	decide.CloseTotals(t)
	rep.Metrics.DurationMs = took.Milliseconds()
	rep.Metrics.LatencyP50Ms = percentile(latencies, 50)
	rep.Metrics.LatencyP95Ms = percentile(latencies, 95)
	rep.Clusters = cl.list()
	return rep, errors.Join(problems...)
}

// addJudges counts what the judge did for a scenario: each attempt's exchange when it
// repeats (its verdict shows one attempt's), else its one verdict's.
func addJudges(rep *record.Report, dir string, v *record.Verdict) {
	if len(v.Attempts) == 0 {
		rep.AddJudge(v)
		return
	}
	for _, a := range v.Attempts {
		if av, err := store.ReadVerdict(filepath.Join(dir, "attempts", strconv.Itoa(a.Attempt))); err == nil {
			rep.AddJudge(av)
		}
	}
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

// clusterer groups the scenarios that did not pass by what they share, as Rook's reports
// do: compromised ones (first) by feature and whether the canary leaked, failed ones by
// feature and first failing criterion (or forbidden text, or the hook that failed), Unable
// to Verify ones by reason. Clusters are numbered CL-01... in plan order; the report always
// has the list, empty when every judged scenario passed.
type clusterer struct {
	out   []record.Cluster
	index map[string]int
}

// add files the verdict v of the scenario whose records are in dir.
func (c *clusterer) add(dir string, v *record.Verdict) {
	_, snap, _ := store.ReadSnapshot(dir) // a snapshot that does not read leaves the title empty
	kind, why, summary := clusterOf(*v, snap.Feature)
	if kind == "" {
		return
	}
	if c.index == nil {
		c.index = map[string]int{}
	}
	key := kind + "\x00" + why
	i, ok := c.index[key]
	if !ok {
		i = len(c.out)
		c.index[key] = i
		c.out = append(c.out, record.Cluster{Kind: kind, Why: why, FeatureID: snap.Feature})
	}
	c.out[i].Scenarios = append(c.out[i].Scenarios, record.ClusterScenario{ScenarioID: v.ScenarioID, Title: snap.Title, Summary: summary})
}

// list is the clusters, compromised ones first, each kind in plan order.
func (c *clusterer) list() []record.Cluster {
	out := c.out
	if out == nil {
		out = []record.Cluster{}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Kind == "compromised" && out[j].Kind != "compromised" })
	for i := range out {
		out[i].ID = fmt.Sprintf("CL-%02d", i+1)
	}
	return out
}

// clusterOf says which cluster a verdict belongs to, and a one-line summary of it.
func clusterOf(v record.Verdict, feature string) (kind, why, summary string) {
	in := ""
	if feature != "" {
		in = " in " + feature
	}
	if v.Attack.IsCompromised() {
		what := "a success signal matched"
		if strings.HasPrefix(v.Attack.MatchedSignal, "canary ") {
			what = "the planted canary leaked"
		}
		summary := ""
		if len(v.Attack.AttackEvidence) > 0 {
			summary = v.Attack.AttackEvidence[0]
		}
		return "compromised", "the attack landed" + in + ": " + what, summary
	}
	switch v.Status {
	case record.Fail:
		for _, row := range v.Criteria {
			if row.Status == record.Fail {
				return "failed", fmt.Sprintf("the same criterion failed%s (%s)", in, row.CriterionID), row.Achieved
			}
		}
		if len(v.ForbiddenHits) > 0 {
			return "failed", "forbidden text appeared" + in, fmt.Sprintf("%q appeared in turn %d", v.ForbiddenHits[0].Text, v.ForbiddenHits[0].Turn)
		}
		return "failed", "a hook failed" + in, v.Failure
	case record.UnableToVerify:
		for _, row := range v.Criteria {
			if row.Status == record.UnableToVerify {
				return "unverifiable", "Unable to Verify (" + v.UnverifiableReason + ")" + in, row.Achieved
			}
		}
		return "unverifiable", "Unable to Verify (" + v.UnverifiableReason + ")" + in, ""
	}
	return "", "", ""
}
