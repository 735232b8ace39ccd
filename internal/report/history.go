// What the runs of an agent say across runs: each scenario's status run by run, which
// criteria failed, how long it took, what it used and cost, and who must act (owner.go). It
// reads records only, and trusts none it cannot check: a verdict that does not match its
// hooks.json is "untrusted", never its status.

package report

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rookgo/rookgo/internal/record"

	"github.com/rookgo/rookgo/internal/store"
)

// Statuses a scenario has in a run besides a verdict's.
const (
	// NotIncluded: the run did not include the scenario (not selected, or not yet written).
	NotIncluded = ""
	// NotRun: included, and nothing of it was recorded.
	NotRun = "not run"
	// NotJudged: records, and no verdict.
	NotJudged = "not judged"
	// Untrusted: a verdict that does not match the records it claims.
	Untrusted = "untrusted"
)

// Run is one run of the agent.
type Run struct {
	ID, Dir, Profile string
	Seen             time.Time
	// Report is the run's report.yaml; nil when the run wrote none (it was stopped).
	Report *record.Report
	Halted bool
	// Pricing is the price table of the run's profile; nil without one.
	Pricing *record.Pricing
	// Cost sums its scenarios' costs by Pricing; nil without a price table.
	Cost *Cost
}

// Entry is one scenario in one run.
type Entry struct {
	Status string `json:"status"`
	// Failed are the ids of the criteria that failed ("forbidden" for forbidden text).
	Failed []string `json:"failed,omitempty"`
	// DurationMs is the scenario's hooks' wall time, from the first hook's start to the
	// last one's end, over its attempts; 0 when its hooks.json says nothing of it.
	DurationMs int64 `json:"duration_ms"`
	// Usage is the agent's reported tokens; nil when not reported.
	Usage *record.Usage `json:"usage,omitempty"`
	// Attempts is the repeat count when the scenario repeats.
	Attempts int `json:"attempts,omitempty"`
	// Cost is what it cost by the run's price table; nil without one.
	Cost *Cost `json:"cost,omitempty"`

	verdict *record.Verdict
}

// Verdict is the entry's verdict, nil when it has none that can be trusted.
func (e Entry) Verdict() *record.Verdict { return e.verdict }

// History is an agent's runs, newest first, and each scenario's entry in each.
type History struct {
	Agent string
	Runs  []Run
	// Scenarios holds, for every scenario any run included, its entry in each run, in the
	// order of Runs.
	Scenarios map[string][]Entry
}

// LoadHistory reads every run of agent under root.
func LoadHistory(root, agent string) *History {
	h := &History{Agent: agent, Scenarios: map[string][]Entry{}}
	dirs := store.ListRuns(root, agent)
	for i, d := range dirs {
		st := store.Store{Dir: d.Dir}
		run, err := st.Run()
		if err != nil {
			continue // ListRuns read it a moment ago; a run being rewritten is left out
		}
		r := Run{ID: d.ID, Dir: d.Dir, Profile: d.ProfileID, Seen: d.Seen, Halted: run.Halted}
		if rep, err := st.Report(); err == nil {
			r.Report = rep
		}
		if prof, err := st.Profile(); err == nil && prof.Pricing != nil {
			r.Pricing, r.Cost = prof.Pricing, &Cost{}
		}
		h.Runs = append(h.Runs, r)
		for _, e := range run.Included {
			list := h.Scenarios[e.ScenarioID]
			if list == nil {
				list = make([]Entry, len(dirs))
				h.Scenarios[e.ScenarioID] = list
			}
			list[i] = ReadEntry(st.ScenarioDir(e.ScenarioID))
			if r.Pricing != nil && list[i].verdict != nil {
				c := ScenarioCost(r.Pricing, st.ScenarioDir(e.ScenarioID), list[i].verdict)
				list[i].Cost = &c
				r.Cost.Add(c)
			}
		}
	}
	// Runs left out above leave a hole in every list: close it.
	if len(h.Runs) != len(dirs) {
		kept := map[string]bool{}
		for _, r := range h.Runs {
			kept[r.ID] = true
		}
		for id, list := range h.Scenarios {
			var out []Entry
			for i, d := range dirs {
				if kept[d.ID] {
					out = append(out, list[i])
				}
			}
			h.Scenarios[id] = out
		}
	}
	return h
}

// ReadEntry is the entry of the scenario whose records are in dir.
func ReadEntry(dir string) Entry {
	e := Entry{Status: NotRun}
	if _, err := os.Stat(filepath.Join(dir, "snapshot.yaml")); err == nil {
		e.Status = NotJudged
	}
	v, err := store.ReadVerdict(dir)
	switch {
	case errors.Is(err, store.ErrUntrusted):
		e.Status = Untrusted
		return e
	case err != nil || v.Status == "":
		e.DurationMs = duration(dir)
		return e
	}
	e.Status, e.Usage, e.verdict = string(v.Status), v.Usage, v
	for _, r := range v.Rows() {
		if r.Status == record.Fail {
			e.Failed = append(e.Failed, r.CriterionID)
		}
	}
	if len(v.Attempts) == 0 {
		e.DurationMs = duration(dir)
	}
	for _, a := range v.Attempts {
		e.Attempts++
		e.DurationMs += duration(filepath.Join(dir, "attempts", strconv.Itoa(a.Attempt)))
	}
	return e
}

// duration is the wall time of the hooks recorded in dir's hooks.json.
func duration(dir string) int64 {
	h, err := store.ReadHooks(dir)
	if err != nil {
		return 0
	}
	var first, last time.Time
	for _, p := range []*record.PhaseRecord{h.Phases.Open, h.Phases.Execute, h.Phases.Close, h.Phases.Collect} {
		if p == nil {
			continue
		}
		if !p.At.IsZero() && (first.IsZero() || p.At.Before(first)) {
			first = p.At
		}
		end := p.EndedAt
		for _, t := range p.Turns {
			if t.EndedAt.After(end) {
				end = t.EndedAt
			}
		}
		if end.After(last) {
			last = end
		}
	}
	if first.IsZero() || !last.After(first) {
		return 0
	}
	return last.Sub(first).Milliseconds()
}

// EverPassed reports whether the scenario passed in any run of the history.
func (h *History) EverPassed(id string) bool {
	for _, e := range h.Scenarios[id] {
		if e.Status == string(record.Pass) {
			return true
		}
	}
	return false
}

// Owner is who must act on the scenario's entry in run i ("" for a pass, or an entry
// without a verdict). What it failed on counts as achievable (the agent's to keep) when the
// scenario passed in a run of the history, or each criterion it failed passed in one: a
// scenario whose llm_judge row was never decided never passes whole, and its regression
// is still the agent's.
func (h *History) Owner(id string, i int) Owner {
	list := h.Scenarios[id]
	if i >= len(list) || list[i].verdict == nil {
		return ""
	}
	seen := newShown(FailedCriteria(list[i].verdict))
	for _, e := range list {
		if e.verdict != nil {
			seen.see(e.verdict)
		}
	}
	return OwnerOf(list[i].verdict, seen.done())
}

// FailedCriteria are the criteria v failed, by id.
func FailedCriteria(v *record.Verdict) []string {
	var out []string
	for _, row := range v.Rows() {
		if row.Status == record.Fail {
			out = append(out, row.CriterionID)
		}
	}
	return out
}

// shown follows, over a scenario's verdicts, whether it passed in one, or each of the
// criteria it now fails passed in one.
type shown struct {
	passed bool
	want   map[string]bool // the failed criteria not yet seen passing
	any    bool            // there were failed criteria to see
}

func newShown(failed []string) *shown {
	s := &shown{want: map[string]bool{}, any: len(failed) > 0}
	for _, id := range failed {
		s.want[id] = true
	}
	return s
}

func (s *shown) see(v *record.Verdict) {
	if v.Status == record.Pass {
		s.passed = true
	}
	for _, row := range v.Rows() {
		if row.Status == record.Pass {
			delete(s.want, row.CriterionID)
		}
	}
}

func (s *shown) done() bool { return s.passed || s.any && len(s.want) == 0 }

// Flaky reports whether a run's verdict of the scenario says its attempts disagreed: a
// Pass and a Fail among one run's decided attempts. A status that changed between runs is
// a regression or a fix, not flakiness: the agent or its world may have changed between.
func (h *History) Flaky(id string) bool {
	for _, e := range h.Scenarios[id] {
		if e.verdict != nil && e.verdict.Flaky {
			return true
		}
	}
	return false
}

// Snapshot reads the head of a scenario's newest snapshot (its title and how it is
// filed); ok is false when no run holds one that reads.
func (h *History) Snapshot(id string) (head store.SnapshotHead, ok bool) {
	for i, e := range h.Scenarios[id] {
		if e.Status == NotIncluded {
			continue
		}
		if _, head, err := store.ReadSnapshot(store.Store{Dir: h.Runs[i].Dir}.ScenarioDir(id)); err == nil {
			return head, true
		}
	}
	return head, false
}

// PassedAnywhere says, of each scenario of failing (its id to the criteria it failed now),
// whether what it failed on was shown achievable in a run of agent under root: the
// scenario passed there, or each of those criteria passed in some run. It reads only those
// scenarios' verdicts, so a report of one run can say who owns its failures without
// reading every run whole.
func PassedAnywhere(root, agent string, failing map[string][]string) map[string]bool {
	out := map[string]bool{}
	if len(failing) == 0 {
		return out
	}
	seen := make(map[string]*shown, len(failing))
	for id, failed := range failing {
		seen[id] = newShown(failed)
	}
	for _, d := range store.ListRuns(root, agent) {
		st := store.Store{Dir: d.Dir}
		for id, s := range seen {
			if out[id] {
				continue
			}
			if v, err := store.ReadVerdict(st.ScenarioDir(id)); err == nil {
				if s.see(v); s.done() {
					out[id] = true
				}
			}
		}
	}
	return out
}
