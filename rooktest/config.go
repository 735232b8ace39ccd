package rooktest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/affected"
	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/ratelimit"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// config is everything a run's -rook.* flags, their environment twins and the judge's
// ROOK_JUDGE_* settings say, read and checked once, before the suite's files are read.
type config struct {
	opts  options
	judge judgeOptions
}

// settings are where a config is read from: the flags given on the command line, each
// flag's value, and the environment, which gives a flag not given its value (the flag's
// twin: ROOKTEST_ONLY for -rook.only, ROOK_JUDGE_URL for -rook.judge-url).
type settings struct {
	given  map[string]bool
	flag   func(name string) string
	getenv func(string) string
}

// processSettings are the test binary's own flags and environment.
func processSettings() settings {
	s := settings{given: map[string]bool{}, getenv: os.Getenv}
	flag.Visit(func(f *flag.Flag) { s.given[f.Name] = true })
	s.flag = func(name string) string {
		if f := flag.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	return s
}

// get is the setting of flag name: the flag's value when it was given, else the value of
// the environment variable env ("" for the flag's ROOKTEST_ twin), trimmed. as is the name
// the value came under, for an error to name what to fix.
func (s settings) get(name, env string) (v, as string) {
	if s.given[name] {
		return strings.TrimSpace(s.flag(name)), "-" + name
	}
	if env == "" {
		env = envName(name)
	}
	return strings.TrimSpace(s.getenv(env)), env
}

// value is get's value alone.
func (s settings) value(name, env string) string {
	v, _ := s.get(name, env)
	return v
}

// bool is the boolean setting of flag name.
func (s settings) bool(name string) (bool, error) {
	v, as := s.get(name, "")
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want true or false", as, v)
	}
	return b, nil
}

// readConfig reads and checks a run's config from s.
func readConfig(s settings) (config, error) {
	var c config
	var err error
	if c.opts, err = readOptions(s); err != nil {
		return c, err
	}
	c.judge, err = readJudgeOptions(s)
	return c, err
}

// setup is what Start reads before it opens a run: the module, the flags, the suite's
// files and what they say.
type setup struct {
	root, project, records string
	opts                   options
	jopts                  judgeOptions
	prof                   *spec.Profile
	rate                   ratelimit.Rate // the profile's
	scenarios              []brief
	tools                  []string // the tools the suite's criteria name
	quarantine             spec.Quarantine
	goAgent                hook.Agent // the profile's Go agent (hooks: {go: name}); nil for scripts
	warnings               []string
	notes                  []string // said once at the start, without -v too
}

// configure reads the flags and the suite's files, and refuses what stops the run before
// any hook runs: bad flags, bad or stale YAML, a selection that names nothing, a run flag
// naming no run, an unset variable, a missing interpreter.
func configure(s Suite, runs func(subtest string) bool) (*setup, error) {
	c := &setup{}
	var err error
	if c.root, c.project, err = spec.ModuleRootOfWorkingDir(); err != nil {
		return nil, err
	}
	cfg, err := readConfig(processSettings())
	if err != nil {
		return nil, fmt.Errorf("bad flag: %w", err)
	}
	c.opts, c.jopts = cfg.opts, cfg.judge
	if c.prof, c.scenarios, c.tools, c.warnings, err = load(c.root, s, runs); err != nil {
		return nil, err
	}
	if c.rate, err = profileRate(c.prof); err != nil {
		return nil, spec.RelErr(c.root, err)
	}
	c.warnings = append(c.warnings, strayVars(os.Environ())...)
	if c.opts.shard, err = c.opts.shard.withPlan(c.root, c.opts.shardPlan, s.Agent); err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, sc := range c.scenarios {
		ids[sc.id] = true
	}
	if c.quarantine, err = spec.LoadQuarantine(filepath.Join(c.root, "profiles", s.Agent), time.Now(), ids); err != nil {
		return nil, spec.RelErr(c.root, err)
	}
	if slices.Equal(c.opts.only, []string{"@affected"}) {
		set, err := affected.Load(c.root)
		if err != nil {
			return nil, fmt.Errorf("-rook.only=@affected: %w", err)
		}
		if c.opts.only = set.IDs(s.Agent); len(c.opts.only) == 0 {
			return nil, skipTest(fmt.Sprintf("-rook.only=@affected: no scenario of agent %s is affected by the change since %s (%s, written by rookgen affected)",
				s.Agent, set.Base, affected.File))
		}
		c.notes = append(c.notes, fmt.Sprintf("-rook.only=@affected: %s, affected by the change since %s", strings.Join(c.opts.only, ", "), set.Base))
	}
	if err := unknownOnly(c.root, c.opts.only, s); err != nil {
		return nil, err
	}
	if err := noneSelected(c.root, s, c.opts, c.scenarios); err != nil {
		return nil, err
	}
	if err := c.judgeLinked(); err != nil {
		return nil, err
	}
	c.records = spec.RecordsRoot(c.root, c.opts.dir)
	if err := c.resolveRuns(s.Agent); err != nil {
		return nil, err
	}
	c.opts.runID = runIDFor(c.root, s.Agent, c.prof.ID, c.opts.runID)
	if g := &c.opts.gate; g.on && g.base == "" {
		// The baseline is the profile's newest complete run before this one (a run of one
		// scenario from the IDE is none): without one there is nothing to compare with, and
		// every failure counts as it would without the gate.
		if id := lastComplete(c.records, s.Agent, c.prof.ID, c.opts.run); id != "" {
			g.base, g.chosen = id, true
		} else {
			g.on = false
			c.notes = append(c.notes, "-rook.gate: profile "+c.prof.ID+" has no earlier complete run to compare with, so every failure counts as it would without the gate")
		}
	}
	if c.opts.budget > 0 && c.prof.Pricing == nil {
		return nil, fmt.Errorf("-rook.budget needs a price table: add pricing: to %s (agent_model, and each model's input_per_million and output_per_million)", s.Profile.Path)
	}
	if err := c.prof.MissingEnv(os.LookupEnv); err != nil {
		return nil, err
	}
	if c.goAgent, err = goAgentFor(c.prof, s); err != nil {
		return nil, err
	}
	return c, interpretersPresent(c.prof)
}

// resolveRuns turns the runs -rook.run, -rook.resume and -rook.failed name into run ids of
// this profile (latest: its newest), and reads what -rook.failed runs again.
func (c *setup) resolveRuns(agent string) error {
	for _, f := range []struct {
		name string
		id   *string
	}{{"-rook.run", &c.opts.run}, {"-rook.resume", &c.opts.resume}, {"-rook.failed", &c.opts.failed}} {
		latest := *f.id == "latest"
		var err error
		if *f.id, err = resolveRun(f.name, *f.id, c.records, agent, c.prof.ID); err != nil {
			return err
		}
		if latest {
			c.notes = append(c.notes, fmt.Sprintf("%s=latest is run %s, the newest of profile %s; each profile's test continues its own newest run (go test -run with one test's name picks one profile)",
				f.name, *f.id, c.prof.ID))
		}
	}
	if c.opts.failed == "" {
		return nil
	}
	var err error
	c.opts.rerun, c.opts.rerunPlanned, err = toRerun(c.records, agent, c.opts.failed)
	return err
}

// quarantined is the quarantine list as run.yaml records it, in the suite's order.
func (c *setup) quarantined() []record.Entry {
	var out []record.Entry
	for _, sc := range c.scenarios {
		if q, ok := c.quarantine[sc.id]; ok {
			out = append(out, record.Entry{ScenarioID: sc.id, Why: q.Says()})
		}
	}
	return out
}
