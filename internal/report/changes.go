package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/paired"
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
	Paired paired.Comparison `json:"paired" yaml:"paired"`
	// PassRate is the change in pass rate over the attempts both runs decided, with a
	// paired bootstrap interval; set when a scenario repeats in either run.
	PassRate *paired.RateChange `json:"pass_rate_change,omitempty" yaml:"pass_rate_change,omitempty"`
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

// compare fills in Changes against the run in base.
func (r *Report) compare(dir, base string) error {
	old, err := Build(base, "")
	if err != nil {
		return fmt.Errorf("read the baseline run: %w", err)
	}
	r.Base = old.RunID
	c := &Changes{}
	r.Changes = c
	if a, b := profileSHA(dir), profileSHA(base); a != b {
		c.ProfileChanged = true
	}
	before := map[string]Scenario{}
	was, now := map[string]string{}, map[string]string{}
	for _, s := range old.Scenarios {
		before[s.ID] = s
		was[s.ID] = s.Status
	}
	for _, s := range r.Scenarios {
		now[s.ID] = s.Status
	}
	c.Paired = paired.Compare(was, now)
	c.PassRate = rateChange(old.Scenarios, r.Scenarios)
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		prev, ok := before[s.ID]
		delete(before, s.ID)
		if s.Never != "" && (!ok || prev.Never != s.Never) {
			c.NewlyNever = append(c.NewlyNever, s.ID+": "+s.Never)
		}
		switch {
		case !ok && old.others[s.ID]:
			s.Change, c.NotCompared = "not compared: not run in the baseline", append(c.NotCompared, s.ID)
			continue
		case !ok:
			s.Change, c.Added = "added", append(c.Added, s.ID)
			continue
		}
		// The lists may overlap: a redefined scenario can also be newly failing.
		var labels []string
		note := func(list *[]string, label string) {
			*list = append(*list, s.ID)
			labels = append(labels, label)
		}
		redefined := prev.Snapshot != s.Snapshot || c.ProfileChanged
		switch {
		case s.Status == failed && prev.Status == failed:
			note(&c.StillFailing, "still failing")
		case s.Status == failed:
			note(&c.NewlyFailing, "newly failing")
		case prev.Status == failed && s.Status == passed:
			note(&c.Fixed, "fixed")
		}
		if redefined {
			note(&c.Redefined, "redefined")
		}
		if s.Repeat != nil && s.Repeat.Flaky {
			// Flaky is a Pass and a Fail among one run's decided attempts; a status that
			// flipped between runs is a regression or a fix, and the paired test says
			// whether the flips are noise.
			note(&c.Flaky, "flaky")
		}
		s.Change = strings.Join(labels, ", ")
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

// rateChange is the paired bootstrap over each scenario's decided attempts, when one
// repeats in either run (without repeats, McNemar's test says it all).
func rateChange(before, after []Scenario) *paired.RateChange {
	repeats := false
	rates := func(list []Scenario) map[string]paired.Rate {
		out := map[string]paired.Rate{}
		for _, s := range list {
			switch {
			case s.Repeat != nil:
				repeats = true
				out[s.ID] = paired.Rate{Passed: s.Repeat.Passed, Decided: s.Repeat.Attempts - s.Repeat.Undecided}
			case s.Status == passed:
				out[s.ID] = paired.Rate{Passed: 1, Decided: 1}
			case s.Status == failed:
				out[s.ID] = paired.Rate{Decided: 1}
			}
		}
		return out
	}
	b, a := rates(before), rates(after)
	if !repeats {
		return nil
	}
	return paired.Bootstrap(b, a)
}

func profileSHA(dir string) string {
	p, err := (store.Store{Dir: dir}).Profile()
	if err != nil {
		return ""
	}
	return p.SHA256
}

// Previous is the newest run of the same agent and profile older than the run in dir,
// or "" when there is none.
func Previous(dir string) string {
	run, err := (store.Store{Dir: dir}).Run()
	if err != nil {
		return ""
	}
	this := store.RunDir{ID: filepath.Base(dir), Seen: store.Seen(dir)}
	for _, o := range store.ListRuns(filepath.Dir(filepath.Dir(dir)), filepath.Base(filepath.Dir(dir))) {
		if this.Newer(o) && o.ProfileID == run.Pins.ProfileID {
			return o.Dir
		}
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

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
