package record

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"
)

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
	// Quarantined are the scenarios of the agent's quarantine list when the run last ran:
	// run and reported, out of the exit code; each why says until when, and why.
	Quarantined []Entry `yaml:"quarantined,omitempty"`
	// Carried lists the scenarios whose verdicts came forward from ResumeFrom.
	Carried []string `yaml:"carried"`
	// Halted is set when the run stopped early; HaltReason says why.
	Halted     bool   `yaml:"halted"`
	HaltReason string `yaml:"halt_reason,omitempty"`
	// LateSpans are the attempts whose spans arrived after their trace was settled and
	// judged (the trace receiver's quiet window had passed), and the criteria they could
	// have changed.
	LateSpans []LateSpans `yaml:"late_spans,omitempty"`
	// Prepare is the last prepare's record; PrepareAttempts counts the prepares started,
	// the earlier ones kept in prepare/abandoned/<n>/.
	Prepare         *PhaseRecord `yaml:"prepare,omitempty"`
	PrepareAttempts int          `yaml:"prepare_attempts,omitempty"`
	// Shard is set when the run is one shard of a suite (-rook.shard), or several shards
	// merged into one run (rookgen report -merge).
	Shard *Shard `yaml:"shard,omitempty"`
}

// Shard says which part of a suite a run holds. Index is K of -rook.shard=K/N, 0 in a
// merged run, whose Merged lists the shards it holds. SuiteRevision is the SHA-256 of the
// suite's scenario files (ids and hashes), so that shards of different suites are never
// merged.
type Shard struct {
	Index         int    `yaml:"index,omitempty"`
	Count         int    `yaml:"count"`
	SuiteRevision string `yaml:"suite_revision"`
	Merged        []int  `yaml:"merged,omitempty"`
	// Plan is the hash of the shard plan the shard ran (-rook.shard-plan), "" when it split
	// by the id hash.
	Plan string `yaml:"plan,omitempty"`
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
	Pricing      *Pricing                  `yaml:"pricing,omitempty"`
}

// PrepareSummary says what became of the run's prepare, for report.yaml; defined says
// whether the profile has a prepare hook.
func (r Run) PrepareSummary(defined bool) PrepareSummary {
	s := PrepareSummary{Status: "not_run", Attempts: r.PrepareAttempts}
	switch {
	case !defined:
		s.Status = "not_defined"
	case r.Prepare != nil && r.Prepare.OK:
		s.Status = "ok"
	case r.Prepare != nil:
		s.Status = "failed"
	}
	if s.Attempts == 0 && r.Prepare != nil {
		s.Attempts = 1
	}
	return s
}

// ShardOf is the shard, 1 to n, that runs scenario id when a suite is split in n
// (-rook.shard=K/n). It depends on the id alone (FNV-1a), so the shards are disjoint,
// together they are the whole suite, and adding or removing a scenario moves no other.
// ShardSkipped is the why of a scenario another shard runs, as a shard's run.yaml lists it
// among the skipped: "not selected: shard 2/3 runs it (-rook.shard=1/3)".
func ShardSkipped(owner, n int, this string) string {
	return fmt.Sprintf("%s%d/%d runs it (-rook.shard=%s)", otherShard, owner, n, this)
}

// IsShardSkipped reports whether a skipped entry's why is ShardSkipped's: the scenario is
// another shard's.
func IsShardSkipped(why string) bool { return strings.HasPrefix(why, otherShard) }

const otherShard = "not selected: shard "

func ShardOf(id string, n int) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id)) // a hash's Write never fails
	return int(h.Sum64()%uint64(n)) + 1
}
