package record

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Report is report.yaml.
type Report struct {
	RunID     string         `yaml:"run_id"`
	Agent     string         `yaml:"agent_id"`
	Profile   string         `yaml:"profile"`
	Generated time.Time      `yaml:"generated"`
	Prepare   PrepareSummary `yaml:"prepare"`
	Totals    Totals         `yaml:"totals"`
	Metrics   Metrics        `yaml:"metrics"`
	// Clusters group the scenarios that did not pass; empty, never absent, when none.
	Clusters []Cluster `yaml:"clusters"`
	// Judges total what each model judge did in the run, by the model asked for.
	Judges []JudgeTotals `yaml:"judges,omitempty"`
	// Panel is how a panel of judges did, when one decided (record.PanelTotals).
	Panel *PanelTotals `yaml:"panel,omitempty"`
	// LateSpans are the attempts whose spans arrived after they were judged, as run.yaml
	// lists them: what they show is in no verdict.
	LateSpans []LateSpans `yaml:"late_spans,omitempty"`
}

// JudgeTotals is what one model judge did over a run's verdicts: the attempts it judged
// (from its cache or asked; each attempt of a repeated scenario one), the controls asked and
// failed, and the tokens its answers said they used (counted where they said).
type JudgeTotals struct {
	Model          string `yaml:"model" json:"model"`
	Judged         int    `yaml:"judged" json:"judged"`
	Cached         int    `yaml:"cached" json:"cached"`
	Controls       int    `yaml:"controls" json:"controls"`
	ControlsFailed int    `yaml:"controls_failed" json:"controls_failed"`
	// Audited counts the requests asked again with the agent's evidence removed
	// (-rook.judge-audit), Guessed the rows marked judge_guessed.
	Audited int `yaml:"audited,omitempty" json:"audited,omitempty"`
	Guessed int `yaml:"guessed,omitempty" json:"guessed,omitempty"`
	// Committed counts the requests asked first with the agent's replies withheld
	// (-rook.judge-mode=commit), TurnedOver the criteria the replies turned from Pass to
	// Fail or back there (each Unable to Verify).
	Committed  int `yaml:"committed,omitempty" json:"committed,omitempty"`
	TurnedOver int `yaml:"turned_over,omitempty" json:"turned_over,omitempty"`
	// Unanswered counts the scenarios with a row the judge never answered (unreached, an
	// error, the preflight failed, out of protocol).
	Unanswered int   `yaml:"unanswered,omitempty" json:"unanswered,omitempty"`
	TokensIn   int64 `yaml:"tokens_in" json:"tokens_in"`
	TokensOut  int64 `yaml:"tokens_out" json:"tokens_out"`
}

// AddJudge counts one verdict's judge block, and its rows marked judge_guessed, into the
// report's judge totals.
func (r *Report) AddJudge(v *Verdict) {
	j := v.Judge
	if j == nil {
		return
	}
	i := 0
	for i < len(r.Judges) && r.Judges[i].Model != j.Model {
		i++
	}
	if i == len(r.Judges) {
		r.Judges = append(r.Judges, JudgeTotals{Model: j.Model})
	}
	t := &r.Judges[i]
	t.Judged++
	if j.Cached {
		t.Cached++
	}
	t.Controls += j.Controls
	t.ControlsFailed += j.ControlsFailed
	if j.Audit != nil {
		t.Audited++
	}
	if j.Commit != nil {
		t.Committed++
		t.TurnedOver += len(j.Commit.Disagreed)
	}
	unanswered := false
	for _, row := range v.Criteria {
		if row.JudgeGuessed {
			t.Guessed++
		}
		unanswered = unanswered || row.Unanswered
	}
	if unanswered {
		t.Unanswered++
	}
	if j.Usage != nil && j.Usage.Input != nil {
		t.TokensIn += *j.Usage.Input
	}
	if j.Usage != nil && j.Usage.Output != nil {
		t.TokensOut += *j.Usage.Output
	}
	if j.Panel != nil {
		r.addPanel(j.Panel)
		r.Panel.settle()
	}
}

// PrepareSummary says what became of the run's prepare: Status is ok, failed, not_run or
// not_defined; Attempts counts the prepares started (a continued run runs a failed one
// again, keeping the earlier one in prepare/abandoned/<n>/).
type PrepareSummary struct {
	Status   string `yaml:"status"`
	Attempts int    `yaml:"attempts"`
}

// Cluster is a group of scenarios that did not pass for a shared reason. Kind is failed
// or unverifiable.
type Cluster struct {
	ID        string            `yaml:"id"`
	Why       string            `yaml:"why"`
	FeatureID string            `yaml:"feature_id,omitempty"`
	Kind      string            `yaml:"kind"`
	Scenarios []ClusterScenario `yaml:"scenarios"`
}

// ClusterScenario is one scenario of a cluster.
type ClusterScenario struct {
	ScenarioID string `yaml:"scenario_id"`
	Title      string `yaml:"title"`
	Summary    string `yaml:"summary"`
}

// Totals counts scenarios. planned == executed + not_run; executed == passed + failed +
// unverifiable + unjudged; unrunnable is outside planned.
type Totals struct {
	Planned      int `yaml:"planned" json:"planned"`
	Executed     int `yaml:"executed" json:"executed"`
	Passed       int `yaml:"passed" json:"passed"`
	Failed       int `yaml:"failed" json:"failed"`
	Unverifiable int `yaml:"unverifiable" json:"unverifiable"`
	Unjudged     int `yaml:"unjudged" json:"unjudged"`
	// Untrusted counts the unjudged scenarios whose verdict.yaml did not match the records
	// it claims (ReadVerdict): never counted as what they say.
	Untrusted int `yaml:"untrusted,omitempty" json:"untrusted,omitempty"`
	// Compromised counts the adversarial scenarios whose attack landed; PossibleEvasion
	// those flagged possible_evasion. Both are among the counts above too.
	Compromised int `yaml:"compromised,omitempty" json:"compromised,omitempty"`
	// Excused counts the scenarios that did not pass and whose failure was left out of the
	// exit code (quarantine, -rook.gate): among the counts above too.
	Excused         int     `yaml:"excused,omitempty" json:"excused,omitempty"`
	PossibleEvasion int     `yaml:"possible_evasion,omitempty" json:"possible_evasion,omitempty"`
	NotRun          int     `yaml:"not_run" json:"not_run"`
	Unrunnable      int     `yaml:"unrunnable" json:"unrunnable"`
	Decided         int     `yaml:"decided" json:"decided"`
	PassRate        float64 `yaml:"pass_rate" json:"pass_rate"`
	CarriedForward  int     `yaml:"carried_forward" json:"carried_forward"`
}

// Metrics are measured over the run.
type Metrics struct {
	DurationMs   int64 `yaml:"duration_ms" json:"duration_ms"`
	TokensIn     int64 `yaml:"tokens_in" json:"tokens_in"`
	TokensOut    int64 `yaml:"tokens_out" json:"tokens_out"`
	LatencyP50Ms int64 `yaml:"latency_p50_ms" json:"latency_p50_ms"`
	LatencyP95Ms int64 `yaml:"latency_p95_ms" json:"latency_p95_ms"`
	TurnsTotal   int   `yaml:"turns_total" json:"turns_total"`
	// CriteriaDecided counts the criteria that passed or failed, over the run's verdicts.
	CriteriaDecided int `yaml:"criteria_decided" json:"criteria_decided"`
}

// Check holds the invariants Rook's CI recipe checks on every report: planned == executed
// + not_run; executed == passed + failed + unverifiable + unjudged; decided == passed +
// failed; pass_rate == passed / decided (0 when nothing was decided); no count negative.
func (t Totals) Check() error {
	var problems []string
	for name, n := range map[string]int{"planned": t.Planned, "executed": t.Executed, "passed": t.Passed, "failed": t.Failed,
		"unverifiable": t.Unverifiable, "unjudged": t.Unjudged, "not_run": t.NotRun, "unrunnable": t.Unrunnable,
		"decided": t.Decided, "carried_forward": t.CarriedForward} {
		if n < 0 {
			problems = append(problems, fmt.Sprintf("%s is negative (%d)", name, n))
		}
	}
	if t.Planned != t.Executed+t.NotRun {
		problems = append(problems, fmt.Sprintf("planned %d != executed %d + not_run %d", t.Planned, t.Executed, t.NotRun))
	}
	if t.Executed != t.Passed+t.Failed+t.Unverifiable+t.Unjudged {
		problems = append(problems, fmt.Sprintf("executed %d != passed %d + failed %d + unverifiable %d + unjudged %d", t.Executed, t.Passed, t.Failed, t.Unverifiable, t.Unjudged))
	}
	if t.Decided != t.Passed+t.Failed {
		problems = append(problems, fmt.Sprintf("decided %d != passed %d + failed %d", t.Decided, t.Passed, t.Failed))
	}
	want := 0.0
	if t.Decided > 0 {
		want = float64(t.Passed) / float64(t.Decided)
	}
	if math.Abs(t.PassRate-want) > 1e-9 {
		problems = append(problems, fmt.Sprintf("pass_rate %v != passed / decided %v", t.PassRate, want))
	}
	if len(problems) > 0 {
		return fmt.Errorf("report totals break their invariants: %s", strings.Join(problems, "; "))
	}
	return nil
}
