package site

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// agentView is everything the pages show of one agent.
type agentView struct {
	Name      string
	Profiles  []profileRow
	Features  []featureRow
	Scenarios []scenarioRow
	// Runs are newest first.
	Runs []runRow
	// Owners, Classes and Categories are the values the scenario filters offer.
	Owners, Classes, Categories, FeatureIDs []string
	// Charts are the trends a lead looks for, per profile, over its runs (charts.go).
	Charts []chart
}

type profileRow struct {
	ID     string
	Runs   int
	Newest string
}

type featureRow struct {
	ID, Name  string
	Scenarios int
}

type scenarioRow struct {
	ID, Title, Class, Category, Feature string
	Tags                                []string
	// Status is the newest run's status of it ("never run" when no run included it).
	Status   string
	Owner    string
	Flaky    bool
	NeverRun bool
	// Compromised says the newest run's attack on it landed.
	Compromised bool
	// Strip is its status in each run, oldest first: a run that did not include it is
	// empty.
	Strip []cell
	// Profiles are its newest status and strip per profile, in the order profiles first
	// ran it: a profile's runs are never read as another's (a fake passing says nothing of
	// the real service). Status, Owner and Compromised above are the worst profile's.
	Profiles []profileStrip
}

// profileStrip is a scenario as one profile's runs saw it.
type profileStrip struct {
	Profile, Status, Owner string
	Compromised            bool
	// Strip is its status in each run of the profile, oldest first.
	Strip []cell
}

// severity orders statuses for the worst of a scenario's profiles: what most needs a
// look first.
func severity(status string) int {
	switch status {
	case "untrusted":
		return 6
	case string(record.Fail):
		return 5
	case string(record.UnableToVerify):
		return 4
	case "not judged", "unrunnable":
		return 3
	case string(record.Pass):
		return 1
	}
	return 2
}

type cell struct {
	RunID, Status, Owner string
	// Profile is the run's profile; Excused says what left a failure out of the run's exit
	// code (quarantine, gate), "" when it counted.
	Profile, Excused string
	DurationMs       int64
	Tokens           string
	Failed           string
	Cost             string
}

type runRow struct {
	ID, Profile string
	Totals      *record.Totals
	Rate        string
	DurationMs  int64
	Cost        string
	Halted      bool
}

// agentNames are the agents with runs under the records root, and those with scenarios in
// the module, sorted; only names that are ids (a folder a hostile shard named otherwise is
// not shown).
func (s *Site) agentNames() []string {
	seen := map[string]bool{}
	for _, r := range store.ListRuns(s.Root, "") {
		seen[r.Agent] = true
	}
	if s.Module != "" {
		dirs, _ := os.ReadDir(filepath.Join(s.Module, "scenarios"))
		for _, d := range dirs {
			files, _ := filepath.Glob(filepath.Join(s.Module, "scenarios", d.Name(), "*.yaml"))
			if d.IsDir() && len(files) > 0 {
				seen[d.Name()] = true
			}
		}
	}
	var out []string
	for a := range seen {
		if record.ValidID(a) {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// agent reads one agent's runs, and its suite and features from the module when known.
func (s *Site) agent(name string) *agentView {
	if v := s.cache[name]; v != nil {
		return v
	}
	h := report.LoadHistory(s.Root, name)
	v := &agentView{Name: name}
	suite := s.suite(name)
	ids := map[string]bool{}
	for id := range h.Scenarios {
		ids[id] = true
	}
	for _, sc := range suite {
		ids[sc.ID] = true
	}
	for id := range ids {
		v.Scenarios = append(v.Scenarios, s.scenario(h, id, suite[id]))
	}
	sort.Slice(v.Scenarios, func(i, j int) bool { return v.Scenarios[i].ID < v.Scenarios[j].ID })
	profiles := map[string]*profileRow{}
	for _, r := range h.Runs {
		v.Runs = append(v.Runs, runOf(r))
		p := profiles[r.Profile]
		if p == nil {
			p = &profileRow{ID: r.Profile, Newest: r.ID}
			profiles[r.Profile] = p
			v.Profiles = append(v.Profiles, *p)
		}
		p.Runs++
	}
	for i := range v.Profiles {
		v.Profiles[i] = *profiles[v.Profiles[i].ID]
	}
	v.Charts = charts(h.Runs)
	v.Features = s.features(name, v.Scenarios)
	for _, sc := range v.Scenarios {
		v.Owners = addOnce(v.Owners, sc.Owner)
		v.Classes = addOnce(v.Classes, sc.Class)
		v.Categories = addOnce(v.Categories, sc.Category)
	}
	for _, f := range v.Features {
		v.FeatureIDs = append(v.FeatureIDs, f.ID)
	}
	if s.cache != nil {
		s.cache[name] = v
	}
	return v
}

func addOnce(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	list = append(list, s)
	sort.Strings(list)
	return list
}

// suite reads the module's scenario files of the agent; a file that does not load is left
// out (rookgen check says why).
func (s *Site) suite(agent string) map[string]*spec.Scenario {
	out := map[string]*spec.Scenario{}
	if s.Module == "" {
		return out
	}
	files, _ := filepath.Glob(filepath.Join(s.Module, "scenarios", agent, "*.yaml"))
	for _, f := range files {
		if sc, err := spec.LoadScenario(f); err == nil {
			out[sc.ID] = sc
		}
	}
	return out
}

// scenario is one scenario's row: what its file (or newest snapshot) says of it, and its
// entry in every run.
func (s *Site) scenario(h *report.History, id string, sc *spec.Scenario) scenarioRow {
	row := scenarioRow{ID: id, Status: "never run", NeverRun: true, Flaky: h.Flaky(id)}
	if sc == nil {
		sc = s.snapshot(h, id)
	}
	if sc != nil {
		row.Title, row.Class, row.Category, row.Feature, row.Tags = sc.Title, sc.Class, sc.Category, sc.Feature, sc.Tags
	}
	entries := h.Scenarios[id]
	for i := len(h.Runs) - 1; i >= 0; i-- {
		c := cell{RunID: h.Runs[i].ID, Profile: h.Runs[i].Profile}
		if i < len(entries) && entries[i].Status != report.NotIncluded {
			e := entries[i]
			c.Status, c.DurationMs, c.Failed = e.Status, e.DurationMs, strings.Join(e.Failed, ", ")
			if v := e.Verdict(); v != nil {
				c.Excused = v.ExcusedBy
			}
			c.Owner = string(h.Owner(id, i))
			if e.Cost != nil {
				c.Cost = report.Money(h.Runs[i].Pricing, e.Cost.Total)
			}
			if e.Usage != nil {
				c.Tokens = record.Count(e.Usage.Input) + " in, " + record.Count(e.Usage.Output) + " out"
			}
			row.NeverRun = false
			p := profileOf(&row, c.Profile)
			p.Status, p.Owner = c.Status, c.Owner
			p.Compromised = e.Verdict() != nil && e.Verdict().Attack.IsCompromised()
		}
		row.Strip = append(row.Strip, c)
		p := profileOf(&row, c.Profile)
		p.Strip = append(p.Strip, c)
	}
	// A profile none of whose runs included the scenario has nothing to say of it.
	row.Profiles = slices.DeleteFunc(row.Profiles, func(p profileStrip) bool { return p.Status == "" })
	worst := -1
	for _, p := range row.Profiles {
		if sev := severity(p.Status); sev > worst || p.Compromised && !row.Compromised {
			worst, row.Status, row.Owner = sev, p.Status, p.Owner
		}
		row.Compromised = row.Compromised || p.Compromised
	}
	return row
}

// profileOf is row's entry for profile, added when it has none.
func profileOf(row *scenarioRow, profile string) *profileStrip {
	if p := profileFound(row, profile); p != nil {
		return p
	}
	row.Profiles = append(row.Profiles, profileStrip{Profile: profile})
	return &row.Profiles[len(row.Profiles)-1]
}

func profileFound(row *scenarioRow, profile string) *profileStrip {
	for i := range row.Profiles {
		if row.Profiles[i].Profile == profile {
			return &row.Profiles[i]
		}
	}
	return nil
}

// snapshot reads a scenario that is no longer in the module from its newest snapshot.
func (s *Site) snapshot(h *report.History, id string) *spec.Scenario {
	snap, ok := h.Snapshot(id)
	if !ok {
		return nil
	}
	return &spec.Scenario{ID: id, Title: snap.Title, Class: snap.Class, Category: snap.Category, Feature: snap.Feature, Tags: snap.Tags}
}

// features are the agent's features: those its scenarios name (feature_id, and each tag),
// and those defined in the module's features/<agent>/*.yaml (id or local_id, name), with
// how many scenarios test each; a defined feature none tests is untested.
func (s *Site) features(agent string, scenarios []scenarioRow) []featureRow {
	byID := map[string]*featureRow{}
	add := func(id, name string) *featureRow {
		f := byID[id]
		if f == nil {
			f = &featureRow{ID: id, Name: name}
			byID[id] = f
		}
		if f.Name == "" {
			f.Name = name
		}
		return f
	}
	if s.Module != "" {
		files, _ := filepath.Glob(filepath.Join(s.Module, "features", agent, "*.yaml"))
		for _, file := range files {
			var f struct {
				ID      string `yaml:"id"`
				LocalID string `yaml:"local_id"`
				Name    string `yaml:"name"`
			}
			data, err := os.ReadFile(file)
			if err != nil || yaml.Unmarshal(data, &f) != nil {
				continue
			}
			id := f.ID
			if id == "" {
				id = f.LocalID
			}
			if id == "" {
				id = strings.TrimSuffix(filepath.Base(file), ".yaml")
			}
			add(id, f.Name)
		}
	}
	for _, sc := range scenarios {
		if sc.Feature != "" {
			add(sc.Feature, "").Scenarios++
		}
		for _, tag := range sc.Tags {
			add("tag:"+tag, "").Scenarios++
		}
	}
	out := make([]featureRow, 0, len(byID))
	for _, f := range byID {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func runOf(r report.Run) runRow {
	row := runRow{ID: r.ID, Profile: r.Profile, Rate: "n/a", Halted: r.Halted}
	if r.Cost != nil {
		row.Cost = report.Money(r.Pricing, r.Cost.Total)
		if len(r.Cost.Unpriced) > 0 {
			row.Cost += " (leaves out: " + strings.Join(r.Cost.Unpriced, "; ") + ")"
		}
	}
	if rep := r.Report; rep != nil {
		t := rep.Totals
		row.Totals, row.DurationMs = &t, rep.Metrics.DurationMs
		if t.Decided > 0 {
			row.Rate = fmt.Sprintf("%.0f%% (%d of %d)", t.PassRate*100, t.Passed, t.Decided)
		}
	}
	return row
}
