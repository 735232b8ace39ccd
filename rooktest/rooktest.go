package rooktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/internal/workspace"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// SupportsGenVersion1 is referenced by every file rookgen generates. A generated file that
// does not compile against it was written by another version of rookgen: regenerate it
// with go generate ./... (or go tool rookgen).
const SupportsGenVersion1 = true

// Suite is what a generated test file knows about one profile and its agent's scenarios:
// where their YAML lives and what it held when the file was generated.
type Suite struct {
	// Agent is the agent directory name: profiles/<Agent>/ and scenarios/<Agent>/.
	Agent string
	// Profile is the profile file.
	Profile File
	// Scenarios are the agent's scenario files, sorted by id.
	Scenarios []Scenario
}

// File is a source file, relative to the module root, and its SHA-256 when generated.
type File struct {
	Path   string
	SHA256 string
}

// Scenario is one scenario file of a Suite.
type Scenario struct {
	ID string
	File
}

// Run is one run of a Suite: one record folder, prepare once, each scenario once.
// Start makes it; the generated test calls Scenario once per scenario subtest.
type Run struct {
	t       tb
	suite   Suite
	opts    options
	profile *spec.Profile
	// root is the module root. A scenario is read from its file (suite.Scenarios) when it
	// starts, not held from Start on. plans are the suite's scenarios' decisions, in the
	// suite's order; indexOf, when the suite is not sorted by id, finds them.
	root    string
	plans   []plan
	indexOf map[string]int
	judges  bool // an llm_judge criterion is judged in this process
	red     *store.Redactor
	judge   *modeljudge.Judge
	sel     lifecycle.Selection
	run     *lifecycle.Run
	prior   *lifecycle.Prior
	ctx     context.Context
	cancel  context.CancelFunc
	startBy time.Time // no scenario starts after it: go test's -timeout is near
	// notStarted counts the scenarios that did not start because startBy had passed.
	notStarted atomic.Int64

	// ahead says Start feeds the scheduler the scenarios go test -run selects (their
	// plans say fed), so that their subtests need not run in parallel; byID finds their
	// jobs, and feeding is the goroutine that feeds them.
	ahead   bool
	byID    map[string]*job
	feeding sync.WaitGroup
	// stop, closed when the test has ended, turns the queued scenarios no subtest claimed
	// (go test -failfast) into not run.
	stop chan struct{}

	startOnce   sync.Once
	queue       chan *job
	done        chan struct{}
	mu          sync.Mutex
	queued      int             // jobs queued
	claimed     map[string]bool // the scenarios whose subtest ran
	concurrency int
}

type plan struct {
	decision decision
	why      string
	// fed says Start feeds the scenario to the scheduler (go test -run selects it).
	fed bool
}

// Start loads and checks the suite's YAML, plans the run and creates its record folder.
// Any problem (stale generated code, bad YAML, unset environment variables, a missing
// interpreter) fails the test before any hook runs. The run is finished, and report.yaml
// written, when the test and all its subtests have ended.
func Start(t *testing.T, s Suite) *Run {
	t.Helper()
	r, err := start(tshim{t}, s)
	var skip skipTest
	if errors.As(err, &skip) {
		t.Skipf("rooktest: %s", skip)
	}
	if err != nil {
		t.Fatalf("rooktest: %v", err)
	}
	return r
}

// start is Start on a tb, returning what stops the run before any hook runs.
func start(t tb, s Suite) (*Run, error) {
	t.Helper()
	root, project, err := workspace.RootOfWorkingDir()
	if err != nil {
		return nil, err
	}
	opts, err := loadOptions()
	if err != nil {
		return nil, fmt.Errorf("bad flag: %w", err)
	}
	jopts, err := loadJudgeOptions()
	if err != nil {
		return nil, fmt.Errorf("bad flag: %w", err)
	}
	prof, scenarios, warnings, err := load(root, s)
	if err != nil {
		return nil, err
	}
	if err := unknownOnly(root, opts.only, s); err != nil {
		return nil, err
	}
	if err := noneSelected(root, s, opts, scenarios); err != nil {
		return nil, err
	}
	records := workspace.RecordsRoot(root, opts.dir)
	for _, f := range []struct {
		name string
		id   *string
	}{{"-rook.run", &opts.run}, {"-rook.resume", &opts.resume}, {"-rook.failed", &opts.failed}} {
		if *f.id, err = resolveRun(f.name, *f.id, records, s.Agent, prof.ID); err != nil {
			return nil, err
		}
	}
	if opts.failed != "" {
		if opts.rerun, err = toRerun(records, s.Agent, opts.failed); err != nil {
			return nil, err
		}
	}
	opts.runID = runIDFor(root, s.Agent, prof.ID, opts.runID)
	if err := prof.MissingEnv(os.LookupEnv); err != nil {
		return nil, err
	}
	if err := interpretersPresent(prof); err != nil {
		return nil, err
	}
	secrets := map[string]string{}
	for _, v := range prof.Env {
		if !v.IsSecret() {
			continue // a setting (a URL, an engine): the evidence keeps it as the hooks saw it
		}
		secrets[v.Variable] = os.Getenv(v.Variable)
		if n := len(secrets[v.Variable]); n < store.MinRedacted {
			t.Logf("rooktest: warning: secret %s is only %d character(s) long, too short to redact without erasing unrelated text; it is not redacted", v.Variable, n)
		} else if store.CommonText(secrets[v.Variable]) {
			t.Logf("rooktest: warning: secret %s is all digits or a common word; it is redacted in free text, but never in the records' ids, times and statuses", v.Variable)
		}
	}
	if key := jopts.cfg.APIKey; key != "" {
		// The judge's key is redacted like a declared secret: records, log, JUnit.
		secrets["ROOK_JUDGE_API_KEY"] = key
	}
	r := &Run{t: t, suite: s, opts: opts, profile: prof, root: root,
		plans: make([]plan, len(s.Scenarios)), red: store.NewRedactor(secrets), done: make(chan struct{}),
		byID: map[string]*job{}, claimed: map[string]bool{}, stop: make(chan struct{})}
	sel, err := lifecycle.ParseSelection(opts.phases, opts.skip, prof, opts.run != "")
	if err != nil {
		return nil, err
	}
	r.sel = sel
	concurrency := prof.Concurrency
	if opts.concurrency > 0 {
		concurrency = opts.concurrency
	}
	cfg := lifecycle.Config{Workspace: root, Project: project, Agent: s.Agent, Profile: prof,
		RecordsRoot: records, Env: os.Environ(), Redactor: r.red, Concurrency: concurrency,
		Selection: sel, MinConfidence: jopts.minConfidence, RunID: opts.runID, Shard: opts.shard.record(s)}
	cfg.Judge = jopts.judgeFor(cfg.RecordsRoot)
	r.judge = cfg.Judge
	var planned map[string]bool
	if opts.run != "" {
		if planned, err = lifecycle.Planned(cfg.RecordsRoot, s.Agent, opts.run); err != nil {
			return nil, workspace.Rel(root, err)
		}
	}
	cfg.Included, cfg.Skipped, cfg.Unrunnable = r.plan(scenarios, planned)
	if err := r.open(cfg); err != nil {
		return nil, workspace.Rel(root, err)
	}
	run := r.run
	included := cfg.Included
	r.ctx, r.cancel, r.startBy = testContext(t)
	how := "new run"
	switch {
	case opts.run != "":
		how = "continuing in place"
	case opts.resume != "":
		how = "new run resuming from " + opts.resume
	}
	runs, exact := runFilter(t.Name())
	var ahead []string
	for _, sc := range scenarios {
		if i, ok := r.index(sc.ID); ok && r.plans[i].decision == include && runs(sc.Subtest()) {
			ahead = append(ahead, sc.ID)
			r.plans[i].fed = exact
		}
	}
	selected := len(ahead)
	r.judges = r.judging(scenarios)
	plan := fmt.Sprintf("%d scenario(s) planned", selected)
	if selected != len(included) {
		plan = fmt.Sprintf("%d of %d planned scenario(s) selected by -run", selected, len(included))
	}
	if opts.shard.n > 1 {
		plan += fmt.Sprintf(" in shard %s", opts.shard)
	}
	t.Logf("rook run %s (%s; profile %s, %s, phases %s, concurrency %d): records in %s",
		run.ID, how, prof.ID, plan, sel, concurrency, run.Dir)
	if r.judge != nil {
		t.Logf("judge: model %s at %s (llm_judge criteria; -rook.min-confidence=%s)", r.judge.Model(), r.judge.URL(), jopts.minConfidence)
	}
	attr(t, "rook.run_id", run.ID)
	attr(t, "rook.records", run.Dir)
	for _, w := range warnings {
		r.warn(t, w) // what generation let stand under -lenient, said while it stands
	}
	t.Cleanup(r.finish)
	r.concurrency = concurrency
	if !exact {
		// Each subtest queues its scenario and pauses (see Scenario): every one is queued
		// before any runs.
		r.queue = make(chan *job, len(scenarios))
		return r, nil
	}
	// The scenarios -run selects are known: they are fed to the scheduler now, in file
	// order, as it has room for them, and their subtests run one after another, each
	// waiting for its own outcome. A job exists only from shortly before its scenario
	// starts until its subtest has reported it: a long suite holds a handful.
	r.ahead, r.queued = true, len(ahead)
	r.queue = make(chan *job)
	r.startOnce.Do(func() { go r.dispatch() })
	r.feeding.Go(func() {
		for _, id := range ahead {
			select {
			case r.queue <- r.jobFor(id):
			case <-r.stop:
				return // the test has ended
			}
		}
	})
	return r, nil
}

// plan decides each scenario: included, skipped (with why) or unrunnable (with why).
// Every unrunnable scenario of the suite is listed as unrunnable, selected or not, as
// Rook's totals count them.
func (r *Run) plan(scenarios []*spec.Scenario, planned map[string]bool) (included, skipped, unrun []record.Entry) {
	if !slices.IsSortedFunc(r.suite.Scenarios, func(a, b Scenario) int { return strings.Compare(a.ID, b.ID) }) {
		r.indexOf = make(map[string]int, len(r.suite.Scenarios))
		for i, f := range r.suite.Scenarios {
			r.indexOf[f.ID] = i
		}
	}
	for _, sc := range scenarios {
		d, why := decide(r.opts, r.profile, sc, planned)
		if i, ok := r.index(sc.ID); ok {
			r.plans[i] = plan{decision: d, why: why}
		}
		switch d {
		case include:
			included = append(included, record.Entry{ScenarioID: sc.ID, Why: "selected"})
		case skip:
			if gap := unrunnableWhy(r.profile, sc); gap != "" && !sc.NotExecutable && !r.opts.shard.excludes(sc.ID) {
				unrun = append(unrun, record.Entry{ScenarioID: sc.ID, Why: gap})
				continue
			}
			skipped = append(skipped, record.Entry{ScenarioID: sc.ID, Why: why})
		case unrunnable:
			unrun = append(unrun, record.Entry{ScenarioID: sc.ID, Why: why})
		}
	}
	return included, skipped, unrun
}

// index finds scenario id in the suite: by binary search, as the generator writes the
// scenarios sorted by id (a long suite needs no map of them).
func (r *Run) index(id string) (int, bool) {
	if r.indexOf != nil {
		i, ok := r.indexOf[id]
		return i, ok
	}
	return slices.BinarySearchFunc(r.suite.Scenarios, id, func(s Scenario, id string) int { return strings.Compare(s.ID, id) })
}

// planOf is scenario id's plan; ok is false for an id not in the suite.
func (r *Run) planOf(id string) (p plan, ok bool) {
	i, ok := r.index(id)
	if !ok {
		return plan{}, false
	}
	return r.plans[i], true
}

// open starts the run: a new one, the one -rook.run continues, or a new one that
// -rook.resume carries work into.
func (r *Run) open(cfg lifecycle.Config) error {
	var err error
	switch {
	case r.opts.run != "":
		r.run, err = lifecycle.Continue(cfg, r.opts.run, time.Now())
	case r.opts.resume != "":
		if r.prior, err = lifecycle.LoadPrior(cfg.RecordsRoot, cfg.Agent, r.opts.resume); err != nil {
			return err
		}
		if r.run, err = lifecycle.New(cfg, time.Now()); err != nil {
			return err
		}
		err = r.run.SetResumeFrom(r.opts.resume)
	default:
		r.run, err = lifecycle.New(cfg, time.Now())
	}
	return err
}

// testContext is the run's context. It ends with the test, on Ctrl-C or SIGTERM (every
// live hook's process group then gets SIGTERM, and SIGKILL a grace period later; close
// hooks still run, to release what open took), and shortly before the test binary's
// deadline, so that a hung hook fails its own phase rather than go test killing the
// binary with every in-flight result. startBy, zero without a deadline, is when the run
// stops starting scenarios, so that those in flight can finish first.
func testContext(t tb) (ctx context.Context, cancel context.CancelFunc, startBy time.Time) {
	ctx, stop := interruptible(t.Context())
	deadline, ok := t.Deadline()
	if !ok {
		return ctx, stop, time.Time{}
	}
	startBy, stopAt := cutoffs(time.Now(), deadline)
	ctx, end := context.WithDeadlineCause(ctx, stopAt, interrupted{
		fmt.Sprintf("go test's -timeout is running out (the test binary ends at %s); raise it, for example go test -timeout 30m", deadline.Format(time.TimeOnly))})
	return ctx, func() { end(); stop() }, startBy
}

// interrupted is the cause of a run's context that ended before its test did: Ctrl-C,
// SIGTERM or go test's deadline. A run stopped so never ends as a pass.
type interrupted struct{ why string }

func (i interrupted) Error() string { return i.why }

// interruptible is parent, cancelled with an interrupted cause on Ctrl-C or SIGTERM.
func interruptible(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			cancel(interrupted{s.String() + " signal received"})
		case <-ctx.Done():
		}
		signal.Stop(sigs)
	}()
	return ctx, func() { cancel(context.Canceled) }
}

// stoppedEarly says why the run's context ended before its test did, or "".
func stoppedEarly(ctx context.Context) string {
	var i interrupted
	if errors.As(context.Cause(ctx), &i) {
		return i.why
	}
	return ""
}

// minStartMargin is the least time left before go test's deadline in which a scenario
// still starts.
const minStartMargin = 5 * time.Second

// cutoffs says, for a test binary that ends at deadline, when the run stops starting
// scenarios (a fifth of the time left before it, at least minStartMargin) and when it
// stops the hooks still running (a tenth before it), leaving the rest to write the
// records and report.yaml. With go test's default -timeout of 10 minutes that is after 8
// and after 9 minutes.
func cutoffs(now, deadline time.Time) (startBy, stopAt time.Time) {
	grace := max(deadline.Sub(now)/20, 100*time.Millisecond)
	return deadline.Add(-max(4*grace, minStartMargin)), deadline.Add(-2 * grace)
}

// load reads the profile and scenarios and checks them against what was generated; typos
// are the scenario keys that read like misspelt ones, which generation let stand only
// under -lenient.
func load(root string, s Suite) (prof *spec.Profile, scenarios []*spec.Scenario, typos []string, err error) {
	fix := "the generated test is stale; run go generate ./... (or " + workspace.GeneratorCommand(root) + ")"
	var problems []error
	prof, err = spec.LoadProfile(filepath.Join(root, s.Profile.Path), filepath.Join(root, "profiles", s.Agent))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("load profile:\n%w", workspace.Rel(root, err))
	}
	if prof.SHA256 != s.Profile.SHA256 {
		problems = append(problems, fmt.Errorf("%s changed after the test was generated: %s", s.Profile.Path, fix))
	}
	known := map[string]bool{}
	for _, f := range s.Scenarios {
		known[filepath.ToSlash(f.Path)] = true
		sc, err := spec.LoadScenario(filepath.Join(root, f.Path))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				problems = append(problems, fmt.Errorf("%s was deleted after the test was generated: %s", f.Path, fix))
				continue
			}
			problems = append(problems, workspace.Rel(root, err))
			continue
		}
		if sc.SHA256 != f.SHA256 {
			problems = append(problems, fmt.Errorf("%s changed after the test was generated: %s", f.Path, fix))
		}
		for _, ty := range sc.Typos {
			typos = append(typos, workspace.Rel(root, errors.New(ty)).Error())
		}
		scenarios = append(scenarios, slim(sc))
	}
	files, _ := filepath.Glob(filepath.Join(root, "scenarios", s.Agent, "*.yaml"))
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		if !known[filepath.ToSlash(rel)] {
			problems = append(problems, fmt.Errorf("%s was added after the test was generated: %s", filepath.ToSlash(rel), fix))
		}
	}
	if len(problems) > 0 {
		return nil, nil, nil, errors.Join(problems...)
	}
	return prof, scenarios, append(typos, ungenerated(root, s.Agent)...), nil
}

// ungenerated names the agent's profiles that have no generated test yet: go test -run
// for one of them says only [no tests to run].
func ungenerated(root, agent string) []string {
	var out []string
	profiles, _ := filepath.Glob(filepath.Join(root, "profiles", agent, "*.yaml"))
	for _, p := range profiles {
		id := strings.TrimSuffix(filepath.Base(p), ".yaml")
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(workspace.GeneratedFile(agent, id)))); errors.Is(err, os.ErrNotExist) {
			out = append(out, fmt.Sprintf("profiles/%s/%s.yaml has no generated test yet (go test runs nothing for it): run go generate ./... (or %s)",
				agent, id, workspace.GeneratorCommand(root)))
		}
	}
	return out
}

// slim is what planning reads of a scenario: its selectors and turns, whether it grades
// usage (RequiresUsage, or a usage criterion), and its first llm_judge criterion if any,
// with none of its text. A job reads the whole scenario again from its file when it
// starts, so that a suite of thousands is not held in memory for the length of the run.
func slim(sc *spec.Scenario) *spec.Scenario {
	out := &spec.Scenario{ID: sc.ID, Title: sc.Title, SetupMessages: make([]string, len(sc.SetupMessages)),
		MultiTurn: sc.MultiTurn, Class: sc.Class, Category: sc.Category, Tags: sc.Tags,
		Excluded: sc.Excluded, NotExecutable: sc.NotExecutable, SkipReason: sc.SkipReason,
		RequiresUsage: sc.RequiresUsage}
	out.RequiresUsage = sc.Observes().Has(check.ObservesUsage)
	for _, c := range sc.Criteria {
		if c.Check.Observes().Has(check.ObservesModel) {
			out.Criteria = []spec.Criterion{{ID: c.ID, Kind: c.Kind, Check: c.Check}}
			break
		}
	}
	return out
}

func interpretersPresent(p *spec.Profile) error {
	seen := map[string]bool{}
	var missing []string
	for _, ph := range spec.HookPhases {
		h, ok := p.Hooks[ph]
		if !ok {
			continue
		}
		prog := h.Argv(ph)[0]
		if seen[prog] {
			continue
		}
		seen[prog] = true
		if !strings.ContainsRune(prog, filepath.Separator) {
			if _, err := exec.LookPath(prog); err != nil {
				missing = append(missing, fmt.Sprintf("%s (for the %s hook)", prog, ph))
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("profile %s: hook programs not found in PATH: %s", p.ID, strings.Join(missing, ", "))
	}
	return nil
}
