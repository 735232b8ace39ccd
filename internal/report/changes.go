package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/store"
)

// Changes is what changed since the baseline run, by scenario id. Newly failing, fixed and
// still failing compare statuses; redefined means the scenario or the profile changed;
// flaky means a Pass and a Fail among this run's decided attempts of the scenario.
type Changes struct {
	NewlyFailing []string `json:"newly_failing" yaml:"newly_failing"`
	Fixed        []string `json:"fixed" yaml:"fixed"`
	StillFailing []string `json:"still_failing" yaml:"still_failing"`
	Flaky        []string `json:"flaky" yaml:"flaky"`
	Redefined    []string `json:"redefined" yaml:"redefined"`
	Added        []string `json:"added" yaml:"added"`
	Removed      []string `json:"removed" yaml:"removed"`
	// NotCompared are scenarios one of the two runs held but did not run (not selected,
	// excluded, unrunnable): like is compared with like only.
	NotCompared    []string `json:"not_compared" yaml:"not_compared"`
	ProfileChanged bool     `json:"profile_changed" yaml:"profile_changed"`
	// Paired is the paired comparison over the scenarios both runs decided: is the change
	// a regression, or noise.
	Paired Comparison `json:"paired" yaml:"paired"`
	// PassRate is the change in pass rate over the attempts both runs decided, with a
	// paired bootstrap interval; set when a scenario repeats in either run.
	PassRate *RateChange `json:"pass_rate_change,omitempty" yaml:"pass_rate_change,omitempty"`
	// NewlyNever are the scenarios with something no excuse covers (a compromise, a
	// forbidden hit, a hook failure, an untrusted record) that the baseline did not have:
	// never noise, whatever the paired test says.
	NewlyNever []string `json:"newly_never_excused,omitempty" yaml:"newly_never_excused,omitempty"`
}

// Gate decides a gate over the changes and says it: it fails on a significant regression
// (the paired test), and on anything newly never excused, which is never noise.
func (c *Changes) Gate(max int, alpha float64) (fails bool, says string) {
	fails, says = c.Paired.Gate(max, alpha)
	if len(c.NewlyNever) > 0 {
		fails = true
		says += "\nthe gate fails: new since the baseline, and never noise: " + strings.Join(c.NewlyNever, "; ")
	}
	return fails, says
}

// compare fills in Changes against the run in base. Of the baseline it keeps what the
// comparison needs of each row, not the rows.
func (r *Report) compare(dir, base string) error {
	old, err := Build(base, "")
	if err != nil {
		return fmt.Errorf("read the baseline run: %w", err)
	}
	defer old.Close()
	r.Base = old.RunID
	c := &Changes{}
	r.Changes = c
	if a, b := profileSHA(dir), profileSHA(base); a != b {
		c.ProfileChanged = true
	}
	before := map[string]baseline{}
	was, now := map[string]string{}, map[string]string{}
	wasRate, nowRate := map[string]Rate{}, map[string]Rate{}
	repeats := false
	for s := range old.Scenarios.All() {
		before[s.ID] = baseline{status: s.Status, never: s.Never, snapshot: s.Snapshot}
		was[s.ID] = s.Status
		repeats = rateOf(wasRate, s) || repeats
	}
	if err := old.Err(); err != nil {
		return fmt.Errorf("read the baseline run: %w", err)
	}
	r.Scenarios.edit(func(s *Scenario) {
		now[s.ID] = s.Status
		repeats = rateOf(nowRate, *s) || repeats
		prev, ok := before[s.ID]
		delete(before, s.ID)
		s.Change = c.add(s, prev, ok, old.others[s.ID])
	})
	c.Paired = Compare(was, now)
	if repeats {
		c.PassRate = Bootstrap(wasRate, nowRate)
	}
	for id := range before {
		if r.others[id] {
			c.NotCompared = append(c.NotCompared, id)
			continue
		}
		c.Removed = append(c.Removed, id)
	}
	sort.Strings(c.Removed)
	sort.Strings(c.NotCompared)
	return nil
}

// baseline is what a comparison needs of a baseline run's row.
type baseline struct {
	status, never string
	snapshot      Digest
}

// add files scenario s under the changes since its baseline row prev (ok is false when the
// baseline has none; notRun when the baseline planned it and did not run it), and returns
// the row's labels.
func (c *Changes) add(s *Scenario, prev baseline, ok, notRun bool) string {
	if s.Never != "" && (!ok || prev.never != s.Never) {
		c.NewlyNever = append(c.NewlyNever, s.ID+": "+s.Never)
	}
	switch {
	case !ok && notRun:
		c.NotCompared = append(c.NotCompared, s.ID)
		return "not compared: not run in the baseline"
	case !ok:
		c.Added = append(c.Added, s.ID)
		return "added"
	}
	// The lists may overlap: a redefined scenario can also be newly failing.
	var labels []string
	note := func(list *[]string, label string) {
		*list = append(*list, s.ID)
		labels = append(labels, label)
	}
	switch {
	case s.Status == failed && prev.status == failed:
		note(&c.StillFailing, "still failing")
	case s.Status == failed:
		note(&c.NewlyFailing, "newly failing")
	case prev.status == failed && s.Status == passed:
		note(&c.Fixed, "fixed")
	}
	if prev.snapshot != s.Snapshot || c.ProfileChanged {
		note(&c.Redefined, "redefined")
	}
	if s.Repeat != nil && s.Repeat.Flaky {
		// Flaky is a Pass and a Fail among one run's decided attempts; a status that
		// flipped between runs is a regression or a fix, and the paired test says
		// whether the flips are noise.
		note(&c.Flaky, "flaky")
	}
	return strings.Join(labels, ", ")
}

// rateOf adds a row's decided attempts to rates, for the paired bootstrap over pass rates,
// and reports whether the scenario repeats (without repeats, McNemar's test says it all).
func rateOf(rates map[string]Rate, s Scenario) (repeats bool) {
	switch {
	case s.Repeat != nil:
		rates[s.ID] = Rate{Passed: s.Repeat.Passed, Decided: s.Repeat.Attempts - s.Repeat.Undecided}
		return true
	case s.Status == passed:
		rates[s.ID] = Rate{Passed: 1, Decided: 1}
	case s.Status == failed:
		rates[s.ID] = Rate{Decided: 1}
	}
	return false
}

func profileSHA(dir string) string {
	p, err := (store.Store{Dir: dir}).Profile()
	if err != nil {
		return ""
	}
	return p.SHA256
}

// Previous is the baseline of the run in dir (Baseline), or "" when there is none.
func Previous(dir string) string {
	base, _ := Baseline(dir)
	return base
}

// Baseline is the newest complete run of the same agent and profile older than the run in
// dir ("" when there is none), and the newer runs of that profile it passed over because
// they were partial (Partial), each "id (why)". A run from the IDE that ran one scenario
// is no baseline for the whole suite.
func Baseline(dir string) (base string, passedOver []string) {
	run, err := (store.Store{Dir: dir}).RunHead()
	if err != nil {
		return "", nil
	}
	this := store.RunDir{ID: filepath.Base(dir), Seen: store.Seen(dir)}
	return LastComplete(filepath.Dir(filepath.Dir(dir)), filepath.Base(filepath.Dir(dir)), run.Pins.ProfileID, this.Newer)
}

// LastComplete is the newest run of agent's profile under root that keep accepts and that
// is a whole run of its suite ("" when there is none), and the newer ones it passed over
// because they were partial (Partial), each "id (why)".
func LastComplete(root, agent, profile string, keep func(store.RunDir) bool) (dir string, passedOver []string) {
	for _, o := range store.ListRuns(root, agent) {
		if o.ProfileID != profile || !keep(o) {
			continue
		}
		if why := Partial(o.Dir); why != "" {
			passedOver = append(passedOver, o.ID+" ("+why+")")
			continue
		}
		return o.Dir, passedOver
	}
	return "", passedOver
}

// BaseNote says which run base is to the run in dir, for a gate's or a report's line: the
// last complete run of its profile (naming the partial ones passed over), or, when the
// user named it, whether it is partial.
func BaseNote(dir, base string, named bool) string {
	id := filepath.Base(base)
	if named {
		if why := Partial(base); why != "" {
			return id + ", named as the baseline, is partial (" + why + ")"
		}
		return id + ", named as the baseline"
	}
	run, _ := (store.Store{Dir: dir}).RunHead()
	note := id + ", the last complete run of profile " + run.Pins.ProfileID
	if _, over := Baseline(dir); len(over) > 0 {
		note += " (passed over, as partial: " + strings.Join(over, ", ") + ")"
	}
	return note
}

// Partial says why the run in dir is not a whole run of its suite, or "" when it is: it
// halted, or a selection left scenarios out (go test -run, -rook.only, tags, -rook.failed,
// one shard's folder before the merge).
func Partial(dir string) string {
	run, err := (store.Store{Dir: dir}).Run()
	if err != nil {
		return "its run.yaml does not read"
	}
	if run.Halted {
		return "it halted"
	}
	left := 0
	for _, e := range run.Skipped {
		if strings.HasPrefix(e.Why, "not selected") {
			left++
		}
	}
	if left > 0 {
		return fmt.Sprintf("a selection: %d of %d scenarios", len(run.Included), len(run.Included)+left)
	}
	return ""
}

// Newest is the newest run under records root, of agent and profile when they are given.
// When there is none, the error says whose runs there are.
func Newest(root, agent, profile string) (string, error) {
	for _, o := range store.ListRuns(root, agent) {
		if profile == "" || o.ProfileID == profile {
			return o.Dir, nil
		}
	}
	all := store.ListRuns(root, "")
	var agents, profiles []string
	for _, o := range all {
		if !slices.Contains(agents, o.Agent) {
			agents = append(agents, o.Agent)
		}
		if o.Agent == agent && !slices.Contains(profiles, o.ProfileID) {
			profiles = append(profiles, o.ProfileID)
		}
	}
	slices.Sort(agents)
	slices.Sort(profiles)
	switch {
	case len(all) == 0:
		return "", fmt.Errorf("no run under %s", root)
	case agent != "" && len(profiles) == 0:
		return "", fmt.Errorf("agent %s has no run under %s; the agents that do: %s", agent, root, strings.Join(agents, ", "))
	case agent != "":
		return "", fmt.Errorf("profile %s of agent %s has no run under %s; its profiles that do: %s", profile, agent, root, strings.Join(profiles, ", "))
	}
	return "", fmt.Errorf("no run of profile %s under %s", profile, root)
}
