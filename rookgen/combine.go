package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// combine is the merged run.yaml, its prepare summary and its wall time. Each scenario's
// plan entry (included, skipped or unrunnable) comes from the shard that owns it; the
// other shards list it as skipped for another shard, which the merged run does not.
func combine(shards []shard) (record.Run, record.PrepareSummary, time.Duration) {
	first := shards[0].run
	n := first.Shard.Count
	m := record.Run{Version: first.Version, ID: first.ID, Agent: first.Agent, Pins: first.Pins,
		Created: first.Created, Concurrency: first.Concurrency, ResumeFrom: first.ResumeFrom,
		Included: []record.Entry{}, Skipped: []record.Entry{}, Unrunnable: []record.Entry{}, Carried: []string{},
		Shard: &record.Shard{Count: n, SuiteRevision: first.Shard.SuiteRevision, Plan: first.Shard.Plan}}
	phases := map[string]bool{}
	var halts []string
	prepare := record.PrepareSummary{Status: "not_defined"}
	for _, s := range shards {
		r, k := s.run, s.run.Shard.Index
		m.Shard.Merged = append(m.Shard.Merged, k)
		// A shard lists the scenarios other shards run as skipped for them (by the id
		// hash, or by the plan it ran): what is left is its own.
		mine := func(es []record.Entry) []record.Entry {
			return slices.DeleteFunc(slices.Clone(es), func(e record.Entry) bool { return record.IsShardSkipped(e.Why) })
		}
		m.Included = append(m.Included, r.Included...)
		m.Skipped = append(m.Skipped, mine(r.Skipped)...)
		m.Unrunnable = append(m.Unrunnable, mine(r.Unrunnable)...)
		m.Carried = append(m.Carried, r.Carried...)
		if r.Created.Before(m.Created) {
			m.Created = r.Created
		}
		if r.Finished.After(m.Finished) {
			m.Finished = r.Finished
		}
		for _, ph := range r.PhasesRun {
			phases[ph] = true
		}
		if !equalPtr(r.ResumeFrom, m.ResumeFrom) {
			m.ResumeFrom = nil // the shards resumed from different runs: no one run
		}
		if r.Halted {
			m.Halted = true
			halts = append(halts, fmt.Sprintf("shard %d/%d: %s", k, n, r.HaltReason))
		}
		m.PrepareAttempts += r.PrepareAttempts
		if r.Prepare != nil && (m.Prepare == nil || m.Prepare.OK && !r.Prepare.OK) {
			m.Prepare = r.Prepare // the first failed prepare, else the first one
		}
		prepare = worse(prepare, r.PrepareSummary(s.prepareDefined))
	}
	m.HaltReason = strings.Join(halts, "; ")
	for _, ph := range spec.Phases {
		if phases[string(ph)] {
			m.PhasesRun = append(m.PhasesRun, string(ph))
		}
	}
	if m.PhasesRun == nil {
		m.PhasesRun = []string{}
	}
	byID := func(a, b record.Entry) int { return cmp.Compare(a.ScenarioID, b.ScenarioID) }
	slices.SortFunc(m.Included, byID)
	slices.SortFunc(m.Skipped, byID)
	slices.SortFunc(m.Unrunnable, byID)
	slices.Sort(m.Carried)
	var took time.Duration
	if !m.Finished.IsZero() {
		took = m.Finished.Sub(m.Created)
	}
	return m, prepare, took
}

// worse combines two shards' prepare summaries: failed before not_run before ok before
// not_defined; attempts add up.
func worse(a, b record.PrepareSummary) record.PrepareSummary {
	rank := map[string]int{"not_defined": 0, "ok": 1, "not_run": 2, "failed": 3}
	s := a
	if rank[b.Status] > rank[a.Status] {
		s = b
	}
	s.Attempts = a.Attempts + b.Attempts
	return s
}

func equalPtr(a, b *string) bool {
	return a == b || a != nil && b != nil && *a == *b
}
