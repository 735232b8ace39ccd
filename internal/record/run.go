package record

import "time"

// Run is run.yaml: the run's plan and what became of it.
type Run struct {
	Version     int       `yaml:"version"`
	ID          string    `yaml:"id"`
	Agent       string    `yaml:"agent_id"`
	Pins        Pins      `yaml:"pins"`
	Created     time.Time `yaml:"created"`
	Finished    time.Time `yaml:"finished,omitempty"`
	PhasesRun   []string  `yaml:"phases_run"`
	Concurrency int       `yaml:"concurrency"`
	Included    []Entry   `yaml:"included"`
	Skipped     []Entry   `yaml:"skipped"`
	Unrunnable  []Entry   `yaml:"unrunnable"`
	ResumeFrom  *string   `yaml:"resume_from"`
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

// Profile is profile.yaml: the profile as the run used it, hooks resolved to paths
// relative to the workspace, and its file's SHA-256.
type Profile struct {
	ID           string                    `yaml:"id"`
	Name         string                    `yaml:"name"`
	Source       string                    `yaml:"source"`
	SHA256       string                    `yaml:"sha256"`
	Hooks        map[string]map[string]any `yaml:"hooks"`
	Env          []map[string]any          `yaml:"env"`
	HookEnv      map[string]string         `yaml:"hook_env,omitempty"`
	Capabilities map[string]bool           `yaml:"capabilities"`
	Concurrency  int                       `yaml:"concurrency"`
}
