// Package report reads the records of runs, and only their records, into the facts a team
// acts on. Of one run: the results table, the failed criteria with their evidence, Unable to
// Verify grouped by reason with what would make it checkable, repeat statistics, metrics,
// what it cost by the profile's price table (cost.go), and what changed since a baseline
// run, with whether the change is noise (the paired scenarios' McNemar test, a bootstrap of
// pass rates over repeats: paired.go), and report.yaml's totals, metrics and clusters, which
// a run writes at its end (summary.go). Across an agent's runs (history.go): each scenario's
// status run by run, who must act (owner.go), and from the durations recorded, a plan that
// splits a suite over shards by time (shardplan.go). It renders them as markdown, JSON or
// YAML (package page renders the HTML page from the same report); it never calls a hook.
package report

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/decide"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// Version is the version of the machine-readable report.
const Version = 1

// Report is one run as a team reads it.
type Report struct {
	Version int    `json:"version" yaml:"version"`
	RunID   string `json:"run_id" yaml:"run_id"`
	Agent   string `json:"agent_id" yaml:"agent_id"`
	Profile string `json:"profile" yaml:"profile"`
	Dir     string `json:"dir" yaml:"dir"`
	// Headline is the run in one line with the next step, from the records alone.
	Headline string         `json:"headline" yaml:"headline"`
	Totals   record.Totals  `json:"totals" yaml:"totals"`
	Metrics  record.Metrics `json:"metrics" yaml:"metrics"`
	// Compromised are the adversarial scenarios whose attack landed; Evasions those
	// flagged possible_evasion.
	Compromised []Compromise  `json:"compromised,omitempty" yaml:"compromised,omitempty"`
	Evasions    []Evasion     `json:"possible_evasion,omitempty" yaml:"possible_evasion,omitempty"`
	Unable      []Reason      `json:"unable_to_verify" yaml:"unable_to_verify"`
	Failed      Rows[Failure] `json:"failed_criteria" yaml:"failed_criteria"`
	// Scenarios are every planned scenario's row, in plan order: the page's table.
	Scenarios Rows[Scenario] `json:"scenarios" yaml:"scenarios"`
	// Spend is what the run cost, by its profile's price table; nil without one.
	Spend *Spend `json:"cost,omitempty" yaml:"cost,omitempty"`
	// Owners count the scenarios that did not pass by who must act (OwnerOf).
	Owners map[Owner]int `json:"owners,omitempty" yaml:"owners,omitempty"`
	// Judges total what each model judge did: scenarios judged, controls asked and failed,
	// the tokens its answers said they used.
	Judges []record.JudgeTotals `json:"judges,omitempty" yaml:"judges,omitempty"`
	// Panel is how a panel of judges did, when one decided (record.PanelTotals).
	Panel *record.PanelTotals `json:"panel,omitempty" yaml:"panel,omitempty"`
	// Changes compares the run with Base, the previous run of the same agent and profile
	// (or the one -base named); nil without one.
	Base    string   `json:"base,omitempty" yaml:"base,omitempty"`
	Changes *Changes `json:"changes,omitempty" yaml:"changes,omitempty"`

	// others are the suite's scenarios the run did not include (not selected, excluded,
	// unrunnable): a scenario there was not added or removed, only not compared.
	others map[string]bool
	tally  tally
}

// Reason is one reason scenarios were Unable to Verify, how many, and what would make
// them checkable.
type Reason struct {
	Reason    string   `json:"reason" yaml:"reason"`
	Count     int      `json:"count" yaml:"count"`
	Remedy    string   `json:"remedy" yaml:"remedy"`
	Scenarios []string `json:"scenarios" yaml:"scenarios"`
}

// Failure is one failed criterion.
type Failure struct {
	ScenarioID  string `json:"scenario_id" yaml:"scenario_id"`
	CriterionID string `json:"criterion_id" yaml:"criterion_id"`
	Expected    string `json:"expected" yaml:"expected"`
	Achieved    string `json:"achieved" yaml:"achieved"`
	Evidence    string `json:"evidence" yaml:"evidence"`
	// Owner is who must act on the scenario (OwnerOf).
	Owner Owner `json:"owner" yaml:"owner"`
}

// A report's scenario status is text (it may also be "not run" or "untrusted"); these are
// its Pass and Fail.
var passed, failed = string(record.Pass), string(record.Fail)

// Scenario is one planned scenario's outcome.
type Scenario struct {
	ID     string `json:"scenario_id" yaml:"scenario_id"`
	Title  string `json:"title" yaml:"title"`
	Status string `json:"status" yaml:"status"` // Pass, Fail, Unable to Verify, not judged, not run
	Reason string `json:"reason,omitempty" yaml:"reason,omitempty"`
	// Owner is who must act on a scenario that did not pass (OwnerOf).
	Owner Owner `json:"owner,omitempty" yaml:"owner,omitempty"`
	// Feature is the scenario's feature_id.
	Feature string `json:"feature,omitempty" yaml:"feature,omitempty"`
	// Cost is what its attempts cost, agent and judge, by the profile's price table.
	Cost *Cost `json:"cost,omitempty" yaml:"cost,omitempty"`
	// Quarantined says until when, and why, the scenario is out of the exit code.
	Quarantined string       `json:"quarantined,omitempty" yaml:"quarantined,omitempty"`
	Repeat      *RepeatStats `json:"repeat,omitempty" yaml:"repeat,omitempty"`
	Change      string       `json:"change,omitempty" yaml:"change,omitempty"`
	// Snapshot is the SHA-256 of snapshot.yaml: a changed one means a redefined scenario.
	Snapshot Digest `json:"snapshot_sha256,omitzero" yaml:"snapshot_sha256,omitempty"`
	// Never names what in its outcome no excuse covers (decide's counting.go): a hook failure,
	// a compromise, a forbidden hit, an untrusted record.
	Never string `json:"never_excused,omitempty" yaml:"never_excused,omitempty"`
}

// Digest is a SHA-256, written in hex. (A report of thousands of scenarios holds each as
// 32 bytes, not as a 64-character string.)
type Digest [sha256.Size]byte

// IsZero reports an unset digest; the formats leave it out.
func (d Digest) IsZero() bool { return d == Digest{} }

// MarshalText writes the digest in hex.
func (d Digest) MarshalText() ([]byte, error) {
	out := make([]byte, hex.EncodedLen(len(d)))
	hex.Encode(out, d[:])
	return out, nil
}

// UnmarshalText reads a digest written in hex.
func (d *Digest) UnmarshalText(b []byte) error {
	if hex.DecodedLen(len(b)) != len(d) {
		return fmt.Errorf("a SHA-256 is %d hex digits, not %d", 2*len(d), len(b))
	}
	_, err := hex.Decode(d[:], b)
	return err
}

// Close removes what the report keeps on disk while it is used (its rows); call it when
// done with the report.
func (r *Report) Close() {
	r.Scenarios.close()
	r.Failed.close()
}

// Err is the first error keeping or reading the report's rows.
func (r *Report) Err() error { return errors.Join(r.Scenarios.Err(), r.Failed.Err()) }

// RepeatStats are a repeated scenario's attempts: k passes of n, pass^k, and a Wilson 95%
// interval on its pass rate (3 of 3 is not proof of a 90% agent).
type RepeatStats struct {
	Passed   int `json:"passed" yaml:"passed"`
	Attempts int `json:"attempts" yaml:"attempts"`
	// Undecided counts the attempts that were Unable to Verify or not judged: neither a pass
	// nor a failure, they are left out of the interval, which is over the decided ones.
	Undecided int  `json:"undecided" yaml:"undecided"`
	PassK     bool `json:"pass_k" yaml:"pass_k"`
	// MinPass is how many attempts had to pass, when not every one had to (min_pass).
	MinPass int     `json:"min_pass,omitempty" yaml:"min_pass,omitempty"`
	Low     float64 `json:"wilson_low" yaml:"wilson_low"`
	High    float64 `json:"wilson_high" yaml:"wilson_high"`
	Flaky   bool    `json:"flaky" yaml:"flaky"`
}

// remedies say what would make a reason checkable.
var remedies = map[string]string{
	record.AgentNeverRan: "the agent never replied: fix the execute hook or the agent (its stderr is in hooks.json)",
	record.NotObservable: "return \"calls\" (or usage) from execute or collect, or give the check the data it reads",
	record.Undecidable:   "configure a judge model (ROOK_JUDGE_URL, ROOK_JUDGE_MODEL) for llm_judge criteria, or see each row's reason",
}

// remedyFor is what would make an Unable to Verify verdict checkable: the reason's remedy,
// or, when a judge model was configured and still decided nothing, what its rows say.
func remedyFor(v *record.Verdict) string {
	if v.UnverifiableReason != record.Undecidable || v.Judge == nil {
		return remedies[v.UnverifiableReason]
	}
	for _, row := range v.Criteria {
		if row.Status == record.UnableToVerify && row.Reason == record.Undecidable {
			return "the judge model (" + v.Judge.Model + ") decided nothing it could stand on: " + row.Achieved
		}
	}
	return "the judge model (" + v.Judge.Model + ") decided nothing it could stand on: see each row's reason"
}

// Build reads the run in dir (a run folder) and, when base is not "", compares it with the
// run in base. Close the report when done with it.
func Build(dir, base string) (*Report, error) {
	st := store.Store{Dir: dir}
	run, err := st.Run()
	if err != nil {
		return nil, err
	}
	rep, err := st.Report()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	r := &Report{Version: Version, RunID: run.ID, Agent: run.Agent, Profile: run.Pins.ProfileID, Dir: dir}
	if rep != nil {
		r.Totals, r.Metrics, r.Judges, r.Panel = rep.Totals, rep.Metrics, rep.Judges, rep.Panel
	}
	r.others = map[string]bool{}
	for _, e := range append(slices.Clone(run.Skipped), run.Unrunnable...) {
		r.others[e.ScenarioID] = true
	}
	r.read(st, run)
	if base != "" {
		if err := r.compare(dir, base); err != nil {
			r.Close()
			return nil, err
		}
	}
	if err := r.Err(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// read reads each scenario the run planned into its row, one verdict at a time: the report
// keeps its rows on disk, and of their verdicts only what the summaries above the rows
// need. Who must act on a scenario that did not pass is decided here both ways, for
// whether it ever passed, which owners learns for all of them at once.
func (r *Report) read(st store.Store, run *record.Run) {
	held := map[string]string{}
	for _, e := range run.Quarantined {
		held[e.ScenarioID] = e.Why
	}
	reasons := map[string]*Reason{}
	pricing := r.pricing(st)
	var notPassed []undecidedOwner
	for _, e := range run.Included {
		sc, v := readScenario(st, e.ScenarioID)
		sc.Quarantined = held[e.ScenarioID]
		r.tally.add(sc)
		if v != nil {
			if v.Status != record.Pass {
				notPassed = append(notPassed, undecidedOwner{id: sc.ID, never: OwnerOf(v, false), ever: OwnerOf(v, true),
					failed: FailedCriteria(v)})
			}
			if len(v.Attempts) > 0 {
				sc.Repeat = repeatStats(v)
			}
			r.attacks(sc, v)
			pricing.add(&sc, v)
			for _, row := range v.Rows() {
				if row.Status == record.Fail {
					r.Failed.add(Failure{ScenarioID: sc.ID, CriterionID: row.CriterionID, Expected: row.Expected,
						Achieved: row.Achieved, Evidence: row.Evidence})
				}
			}
			if v.Status == record.UnableToVerify {
				rs := reasons[v.UnverifiableReason]
				if rs == nil {
					rs = &Reason{Reason: v.UnverifiableReason, Remedy: remedyFor(v)}
					reasons[v.UnverifiableReason] = rs
				}
				rs.Count++
				rs.Scenarios = append(rs.Scenarios, sc.ID)
			}
		}
		r.Scenarios.add(sc)
	}
	for _, rs := range reasons {
		r.Unable = append(r.Unable, *rs)
	}
	r.owners(r.Dir, notPassed)
	pricing.close()
	sort.Slice(r.Unable, func(i, j int) bool { return r.Unable[i].Count > r.Unable[j].Count })
	r.Headline = r.headline()
}

// readScenario reads what the report says of one scenario of the run in st: its
// snapshot's title and feature, and its status from its verdict, which is returned when it
// has one that can be trusted.
func readScenario(st store.Store, id string) (Scenario, *record.Verdict) {
	sc := Scenario{ID: id, Status: "not run"}
	sdir := st.ScenarioDir(id)
	if snap, head, err := store.ReadSnapshot(sdir); err == nil {
		sc.Snapshot = sha256.Sum256(snap)
		sc.Title, sc.Feature = head.Title, head.Feature
		sc.Status = "not judged"
	}
	v, err := store.ReadVerdict(sdir)
	if errors.Is(err, store.ErrUntrusted) {
		sc.Status, sc.Reason = "untrusted", "its verdict.yaml does not match the records it claims (hooks_sha256): not counted"
	}
	if err != nil || v.Status == "" {
		return sc, nil
	}
	sc.Status, sc.Reason = string(v.Status), v.UnverifiableReason
	if v.DecidedAgain != "" {
		sc.Reason = strings.TrimPrefix(sc.Reason+"; decided again "+v.DecidedAgain, "; ")
	}
	sc.Never = decide.Unexcusable(v)
	return sc, v
}

// undecidedOwner is who must act on scenario id, whether it never passed or passed in an
// earlier run.
type undecidedOwner struct {
	id          string
	never, ever Owner
	failed      []string // the criteria it failed, which an earlier pass of each shows achievable
}

// owners says who must act on each scenario that did not pass, by whether it ever passed
// in a run of the agent under the records root.
func (r *Report) owners(dir string, notPassed []undecidedOwner) {
	if len(notPassed) == 0 {
		return
	}
	failing := make(map[string][]string, len(notPassed))
	for _, u := range notPassed {
		failing[u.id] = u.failed
	}
	passed := PassedAnywhere(filepath.Dir(filepath.Dir(dir)), filepath.Base(filepath.Dir(dir)), failing)
	r.Owners = map[Owner]int{}
	by := make(map[string]Owner, len(notPassed))
	for _, u := range notPassed {
		o := u.never
		if passed[u.id] {
			o = u.ever
		}
		by[u.id] = o
		r.Owners[o]++
	}
	r.Scenarios.edit(func(s *Scenario) {
		if o, ok := by[s.ID]; ok {
			s.Owner = o
		}
	})
	r.Failed.edit(func(f *Failure) { f.Owner = by[f.ScenarioID] })
}

func repeatStats(v *record.Verdict) *RepeatStats {
	s := &RepeatStats{Attempts: len(v.Attempts), Flaky: v.Flaky, MinPass: v.MinPass}
	s.Passed, _, s.Undecided = decide.CountAttempts(v.Attempts)
	s.PassK = s.Passed == s.Attempts
	s.Low, s.High = wilson(s.Passed, s.Attempts-s.Undecided)
	return s
}

// wilson is the Wilson score 95% interval of k successes in n trials.
func wilson(k, n int) (float64, float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, mid-half), math.Min(1, mid+half)
}
