package record

import "time"

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
	Planned        int     `yaml:"planned"`
	Executed       int     `yaml:"executed"`
	Passed         int     `yaml:"passed"`
	Failed         int     `yaml:"failed"`
	Unverifiable   int     `yaml:"unverifiable"`
	Unjudged       int     `yaml:"unjudged"`
	NotRun         int     `yaml:"not_run"`
	Unrunnable     int     `yaml:"unrunnable"`
	Decided        int     `yaml:"decided"`
	PassRate       float64 `yaml:"pass_rate"`
	CarriedForward int     `yaml:"carried_forward"`
}

// Metrics are measured over the run.
type Metrics struct {
	DurationMs   int64 `yaml:"duration_ms"`
	TokensIn     int64 `yaml:"tokens_in"`
	TokensOut    int64 `yaml:"tokens_out"`
	LatencyP50Ms int64 `yaml:"latency_p50_ms"`
	LatencyP95Ms int64 `yaml:"latency_p95_ms"`
	TurnsTotal   int   `yaml:"turns_total"`
	// CriteriaDecided counts the criteria that passed or failed, over the run's verdicts.
	CriteriaDecided int `yaml:"criteria_decided"`
}
