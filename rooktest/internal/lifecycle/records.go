package lifecycle

import (
	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/judge"
	"github.com/rookgo/rookgo/internal/spec"
)

// RunFile is run.yaml.
type RunFile struct {
	Version     int      `yaml:"version"`
	ID          string   `yaml:"id"`
	Agent       string   `yaml:"agent_id"`
	Pins        Pins     `yaml:"pins"`
	Created     string   `yaml:"created"`
	Finished    string   `yaml:"finished,omitempty"`
	PhasesRun   []string `yaml:"phases_run"`
	Concurrency int      `yaml:"concurrency"`
	Included    []Entry  `yaml:"included"`
	Skipped     []Entry  `yaml:"skipped"`
	Unrunnable  []Entry  `yaml:"unrunnable"`
	ResumeFrom  *string  `yaml:"resume_from"`
	// Carried lists the scenarios whose verdicts came forward from ResumeFrom.
	Carried []string `yaml:"carried"`
	// Halted is set when the run stopped early; HaltReason says why.
	Halted     bool   `yaml:"halted"`
	HaltReason string `yaml:"halt_reason,omitempty"`
	// Prepare is the last prepare's record; PrepareAttempts counts the prepares started,
	// the earlier ones kept in prepare/abandoned/<n>/.
	Prepare         *PhaseRecord `yaml:"prepare,omitempty"`
	PrepareAttempts int          `yaml:"prepare_attempts,omitempty"`
}

// Pins name the profile a run ran with: its id, and its file's SHA-256 as
// profile_revision (sha256:<hex>).
type Pins struct {
	ProfileID       string `yaml:"profile_id"`
	ProfileRevision string `yaml:"profile_revision"`
}

// Entry names a scenario and why it is in a list of run.yaml.
type Entry struct {
	ScenarioID string `yaml:"scenario_id"`
	Why        string `yaml:"why"`
}

// HooksFile is a scenario's hooks.json: each phase's record, written as the phase ends.
type HooksFile struct {
	Version      int        `json:"version"`
	Phases       HookPhases `json:"phases"`
	Conversation string     `json:"conversation,omitempty"`
	// InFlight names the hook running when the file was written: a file read back with it
	// set was left by a process that died during that hook.
	InFlight *InFlight `json:"in_flight,omitempty"`
}

// InFlight is a hook that has started and not yet ended.
type InFlight struct {
	Phase spec.Phase `json:"phase"`
	Turn  int        `json:"turn,omitempty"`
	At    string     `json:"at"`
}

// HookPhases holds the phase records in lifecycle order.
type HookPhases struct {
	Open    *PhaseRecord `json:"open,omitempty"`
	Execute *PhaseRecord `json:"execute,omitempty"`
	Close   *PhaseRecord `json:"close,omitempty"`
	Collect *PhaseRecord `json:"collect,omitempty"`
}

// PhaseRecord is what one hook call did.
type PhaseRecord struct {
	Ran        bool           `json:"ran" yaml:"ran"`
	OK         bool           `json:"ok" yaml:"ok"`
	At         string         `json:"at" yaml:"at"`
	EndedAt    string         `json:"ended_at" yaml:"ended_at"`
	DurationMs int64          `json:"durationMs" yaml:"duration_ms"`
	Script     string         `json:"script" yaml:"script"`
	Turn       int            `json:"turn,omitempty" yaml:"turn,omitempty"`
	ExitCode   int            `json:"exit_code" yaml:"exit_code"`
	TimedOut   bool           `json:"timed_out,omitempty" yaml:"timed_out,omitempty"`
	Stopped    bool           `json:"stopped,omitempty" yaml:"stopped,omitempty"`
	Error      string         `json:"error,omitempty" yaml:"error,omitempty"`
	Stderr     string         `json:"stderr,omitempty" yaml:"stderr,omitempty"`
	Data       map[string]any `json:"data,omitempty" yaml:"data,omitempty"`
	// Stdout is an execute turn's stdout as the hook printed it: response.json's
	// raw_response.
	Stdout string         `json:"stdout,omitempty" yaml:"-"`
	Turns  []*PhaseRecord `json:"turns,omitempty" yaml:"-"`
}

// Request is request.json.
type Request struct {
	ScenarioID    string   `json:"scenario_id"`
	Attempt       int      `json:"attempt"`
	Goal          string   `json:"goal"`
	SetupMessages []string `json:"setup_messages"`
	Profile       string   `json:"profile"`
	Invoked       string   `json:"invoked"`
}

// Response is response.json.
type Response struct {
	ScenarioID  string       `json:"scenario_id"`
	Attempt     int          `json:"attempt"`
	Status      string       `json:"status"`
	Output      string       `json:"output"`
	RawResponse string       `json:"raw_response"`
	Transcript  []Message    `json:"transcript"`
	Calls       *[]hook.Call `json:"calls,omitempty"`
	Artifacts   []string     `json:"artifacts"`
	LatencyMs   int64        `json:"latency_ms"`
	Turns       int          `json:"turns"`
	Usage       *hook.Usage  `json:"usage"`
}

// Message is one transcript entry.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Verdict is verdict.yaml.
type Verdict struct {
	ScenarioID           string               `yaml:"scenario_id"`
	RunID                string               `yaml:"run_id"`
	Status               judge.Status         `yaml:"status"`
	UnverifiableReason   string               `yaml:"unverifiable_reason,omitempty"`
	Failure              string               `yaml:"failure,omitempty"`
	Criteria             []judge.Row          `yaml:"criteria"`
	PassCount            int                  `yaml:"pass_count"`
	FailCount            int                  `yaml:"fail_count"`
	UnableToVerifyCount  int                  `yaml:"unable_to_verify_count"`
	CompliancePercentage int                  `yaml:"compliance_percentage"`
	ForbiddenHits        []judge.ForbiddenHit `yaml:"forbidden_hits"`
	LatencyMs            int64                `yaml:"latency_ms"`
	Turns                int                  `yaml:"turns"`
	Usage                *hook.Usage          `yaml:"usage"`
	// Attempts, AttemptsPassed and Flaky are set when the scenario repeats.
	Attempts       []AttemptStatus `yaml:"attempts,omitempty"`
	AttemptsPassed *int            `yaml:"attempts_passed,omitempty"`
	Flaky          bool            `yaml:"flaky,omitempty"`
	// CarriedFrom names the run this verdict was carried forward from.
	CarriedFrom string `yaml:"carried_from,omitempty"`
}

// AttemptStatus is one attempt's outcome in a repeated scenario's verdict.
type AttemptStatus struct {
	Attempt            int          `yaml:"attempt"`
	Status             judge.Status `yaml:"status"`
	UnverifiableReason string       `yaml:"unverifiable_reason,omitempty"`
	Failure            string       `yaml:"failure,omitempty"`
	LatencyMs          int64        `yaml:"latency_ms"`
	Turns              int          `yaml:"turns"`
	Usage              *hook.Usage  `yaml:"usage"`
}

// Report is report.yaml.
type Report struct {
	RunID     string         `yaml:"run_id"`
	Agent     string         `yaml:"agent_id"`
	Profile   string         `yaml:"profile"`
	Generated string         `yaml:"generated"`
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
}
