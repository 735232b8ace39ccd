package rooktest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/ratelimit"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/rooktest/internal/capability"
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
// Start makes it; the generated test calls Scenario once per scenario subtest. It is a
// planner (what runs, decided before any hook does), a scheduler (when each scenario
// runs) and a reporter (how outcomes reach the test), over one lifecycle run.
type Run struct {
	t tb
	planner
	scheduler
	reporter
	run   *lifecycle.Run
	prior *lifecycle.Prior
	judge *modeljudge.Judge
}

// planner is what the run does with each scenario, decided from the suite, the flags and
// the profile alone.
type planner struct {
	suite   Suite
	opts    options
	profile *spec.Profile
	sel     lifecycle.Selection
	// root is the module root. A scenario is read from its file (suite.Scenarios) when it
	// starts, not held from Start on. plans are the suite's scenarios' decisions, in the
	// suite's order; indexOf, when the suite is not sorted by id, finds them.
	root    string
	plans   []planCell
	whys    map[int]string // a skipped or unrunnable scenario's plan's why, by index
	indexOf map[string]int
	judges  bool // an llm_judge criterion is judged in this process
	// selected counts the planned scenarios this process's -run selects: with none, prepare is
	// not run ahead of them.
	selected int
	// included counts the scenarios the run's plan includes.
	included int
}

// scheduler starts the planned scenarios, concurrency at a time, as subtests claim them.
type scheduler struct {
	ctx     context.Context
	cancel  context.CancelFunc
	startBy time.Time // no scenario starts after it: go test's -timeout is near
	// notStarted counts the scenarios that did not start because startBy had passed.
	notStarted  atomic.Int64
	concurrency int // at most in flight: -rook.concurrency=auto's ceiling
	slots       *slotLimiter
	// budget is -rook.budget's; nil without one.
	budget *budget
	// traces is the run's trace receiver; nil when traces are off.
	traces capability.Receiver

	// ahead says Start feeds the scheduler the scenarios go test -run selects (their
	// plans say fed), so that their subtests need not run in parallel; byID finds their
	// jobs, and feeding is the goroutine that feeds them.
	ahead   bool
	byID    map[string]*job
	feeding sync.WaitGroup
	// stop, closed when the test has ended, turns the queued scenarios no subtest claimed
	// (go test -failfast) into not run.
	stop chan struct{}

	startOnce sync.Once
	queue     chan *job
	done      chan struct{}
	mu        sync.Mutex
	queued    int    // jobs queued
	claimed   []bool // the scenarios whose subtest ran, in the suite's order
}

// reporter says outcomes on the test, redacted.
type reporter struct {
	red *store.Redactor
	// quarantine is the agent's quarantine list: run and reported, out of the exit code.
	quarantine spec.Quarantine
	// criterionTools are the tools the suite's criteria name, for the did-you-mean at the
	// end of the run.
	criterionTools []string
	// noJudge says the run has no judge on purpose (ROOK_JUDGE_URL=none): an llm_judge row
	// left undecided for want of one is a skip even under -rook.strict.
	noJudge bool
}

type plan struct {
	decision decision
	why      string
	// fed says Start feeds the scenario to the scheduler (go test -run selects it).
	fed bool
}

// planCell is a scenario's plan as the planner holds it for the length of the run: two
// bytes. The why of a scenario that does not run is kept apart (whys), one string for
// every scenario with the same why.
type planCell struct {
	decision decision
	fed      bool
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
	runs, exact := runFilter(t.Name())
	c, err := configure(s, runs)
	if err != nil {
		return nil, err
	}
	r, err := newRun(t, s, c)
	if err != nil {
		return nil, err
	}
	if err := r.open(t, c); err != nil {
		if r.traces != nil {
			_ = r.traces.Close() // the run never opened: nothing will send it a span
		}
		return nil, err
	}
	r.begin(t, c, exact)
	return r, nil
}

// newRun is the run of suite s as c configures it, not yet open.
func newRun(t tb, s Suite, c *setup) (*Run, error) {
	r := &Run{t: t,
		planner:   planner{suite: s, opts: c.opts, profile: c.prof, root: c.root, plans: make([]planCell, len(s.Scenarios)), whys: map[int]string{}},
		scheduler: scheduler{done: make(chan struct{}), byID: map[string]*job{}, claimed: make([]bool, len(s.Scenarios)), stop: make(chan struct{})},
		reporter:  reporter{quarantine: c.quarantine, noJudge: c.jopts.none}}
	var err error
	if r.red, err = redactorFor(t, c.prof, c.jopts); err != nil {
		return nil, err
	}
	if r.sel, err = lifecycle.ParseSelection(c.opts.phases, c.opts.skip, c.prof, c.opts.run != ""); err != nil {
		return nil, err
	}
	if c.opts.budget > 0 {
		r.budget = &budget{limit: c.opts.budget, pricing: c.prof.Pricing}
	}
	r.concurrency, r.slots = c.slots()
	return r, nil
}

// lifecycleConfig is how the lifecycle runs this run: its records, selection and pace, the trace
// receiver (started here, when the profile or -rook.traces asks for one), the MCP prober
// and the judge.
func (r *Run) lifecycleConfig(t tb, c *setup) (lifecycle.Config, error) {
	s := r.suite
	cfg := lifecycle.Config{Workspace: c.root, Project: c.project, Agent: s.Agent, Profile: c.prof,
		RecordsRoot: c.records, Env: os.Environ(), Redactor: r.red, Concurrency: r.concurrency,
		Selection: r.sel, RunID: c.opts.runID, Shard: c.opts.shard.record(s),
		Quarantined: c.quarantined(), Gate: c.opts.gate.on, MaxWait: c.opts.maxWait,
		Notice: func(msg string) { notice(t, r.show("rooktest: "+msg)) }}
	var rate string
	if cfg.Turns, rate = limiter(c.opts.rate, c.rate, c.opts.shard.n); rate != "" {
		c.notes = append(c.notes, "execute turns start at most "+rate+" (in any window of that length); a turn whose agent asks to wait (retry_after_ms) holds them all")
	}
	if c.prof.Traces || c.opts.traces {
		if capability.Traces == nil {
			return cfg, noReceiver(c)
		}
		var err error
		addr := cmp.Or(c.opts.tracesAddr, c.prof.TracesAddr) // fixed when set: a service may export there
		if r.traces, err = capability.Traces(addr); err != nil {
			return cfg, err
		}
		cfg.Traces, cfg.TracesQuiet, cfg.TraceContext = r.traces, c.prof.TracesQuiet, capability.TraceContext
		cfg.TracesServices = c.prof.SettleForServices(addr != "")
		c.notes = append(c.notes, "receiving the agent's OpenTelemetry spans at "+cfg.Traces.Endpoint()+" (OTEL_EXPORTER_OTLP_ENDPOINT, TRACEPARENT and TRACESTATE are given to every hook)")
	}
	if capability.Probe != nil {
		cfg.Probe = capability.Probe(c.prof, cfg.Env)
	}
	cfg.GoAgent = c.goAgent
	cfg.Decide = r.decider(t, c, s.Agent)
	if u := c.jopts.userFor(c.records, r.red.Text); u != nil {
		cfg.User, cfg.UserURL, cfg.UserModel = u, u.URL(), u.Model()
	}
	return cfg, nil
}

// open plans the run and opens its record folder (a continued run keeps the plan it has).
func (r *Run) open(t tb, c *setup) error {
	cfg, err := r.lifecycleConfig(t, c)
	if err != nil {
		return err
	}
	var planned map[string]bool
	if c.opts.run != "" {
		if planned, err = lifecycle.Planned(cfg.RecordsRoot, r.suite.Agent, c.opts.run); err != nil {
			return spec.RelErr(c.root, err)
		}
	}
	cfg.Included, cfg.Skipped, cfg.Unrunnable = r.plan(c.scenarios, planned)
	r.included = len(cfg.Included)
	if err := r.openRecords(cfg); err != nil {
		return spec.RelErr(c.root, err)
	}
	return nil
}

// begin says what the run will do and starts feeding the scheduler the scenarios go test
// -run selects (exact: as their subtests will come).
func (r *Run) begin(t tb, c *setup, exact bool) {
	r.ctx, r.cancel, r.startBy = testContext(t)
	var ahead []string
	for _, sc := range c.scenarios {
		if i, ok := r.index(sc.id); ok && r.plans[i].decision == include && sc.has(runSelected) {
			ahead = append(ahead, sc.id)
			r.plans[i].fed = exact
		}
	}
	r.judges, r.selected = r.judging(c.scenarios), len(ahead)
	r.criterionTools = c.tools
	r.announce(t, len(ahead), r.included, c.jopts.minConfidence)
	for _, n := range c.notes {
		notice(t, "rooktest: "+n)
	}
	for _, w := range c.warnings {
		r.warn(t, w) // what generation let stand under -lenient, said while it stands
	}
	if c.goAgent != nil {
		// Registered before finish, so that it runs after: the agent's last prints
		// are escaped too.
		t.Cleanup(hook.GuardStdout())
	}
	t.Cleanup(r.finish)
	r.feed(ahead, exact, len(c.scenarios))
}

// redactorFor redacts the profile's secrets and the judge's key; a declared secret too
// short or too common to redact without rewriting the agent's text is refused.
func redactorFor(t tb, prof *spec.Profile, jopts judgeOptions) (*store.Redactor, error) {
	secrets := prof.SecretValues(os.Getenv)
	var settings []string
	for _, v := range prof.Env {
		if why := v.Undeclared(os.Getenv(v.Variable)); why != "" {
			t.Logf("rooktest: %s", why)
		} else if v.Setting() {
			settings = append(settings, v.Variable)
		}
	}
	if err := store.WeakSecrets(secrets); err != nil {
		return nil, fmt.Errorf("profile %s: %w", prof.ID, err)
	}
	if len(settings) > 0 {
		t.Logf("rooktest: settings (env entries with no secret: key, not named as credentials), never redacted unless a value reads as a credential: %s", strings.Join(settings, ", "))
	}
	if key := jopts.cfg.APIKey; key != "" {
		// The judge's key is redacted like a declared secret: records, log, JUnit.
		secrets["ROOK_JUDGE_API_KEY"] = key
	}
	if key := jopts.user.APIKey; key != "" && key != jopts.cfg.APIKey {
		secrets["ROOK_USER_API_KEY"] = key
	}
	for i, m := range jopts.cfg.Panel {
		if m.APIKey != "" && m.APIKey != jopts.cfg.APIKey {
			secrets[fmt.Sprintf("ROOK_JUDGE_API_KEY_%d", i+1)] = m.APIKey
		}
	}
	return store.NewRedactor(secrets), nil
}

// announce starts the test log with the run, its plan and its record folder.
func (r *Run) announce(t tb, selected, included int, minConfidence string) {
	how := "new run"
	switch {
	case r.opts.run != "":
		how = "continuing in place"
	case r.opts.resume != "":
		how = "new run resuming from " + r.opts.resume
	}
	plan := fmt.Sprintf("%d scenario(s) planned", selected)
	if selected != included {
		plan = fmt.Sprintf("%d of %d planned scenario(s) selected by -run", selected, included)
	}
	if r.opts.shard.n > 1 {
		plan += fmt.Sprintf(" in shard %s", r.opts.shard)
	}
	concurrency := fmt.Sprint(r.concurrency)
	if r.opts.autoConcurrency {
		concurrency = fmt.Sprintf("auto, up to %d", r.concurrency)
	}
	t.Logf("rook run %s (%s; profile %s, %s, phases %s, concurrency %s): records in %s",
		r.run.ID, how, r.profile.ID, plan, r.sel, concurrency, r.run.Dir)
	if r.judge != nil {
		t.Logf("judge: model %s at %s (llm_judge criteria; -rook.min-confidence=%s)", r.judge.Model(), r.judge.URL(), minConfidence)
	}
	attr(t, "rook.run_id", r.run.ID)
	attr(t, "rook.records", r.run.Dir)
}

// openRecords starts the run's records: a new run, the one -rook.run continues, or a new
// one that -rook.resume carries work into.
func (r *Run) openRecords(cfg lifecycle.Config) error {
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

// decider is how the run decides: the model judge the options configure, the bars its rows
// clear, and its calibration from the suite's labels.
func (r *Run) decider(t tb, c *setup, agent string) decide.Config {
	dc := decide.Config{MinConfidence: c.jopts.minConfidence}
	judgeLimit, judgeRate := limiter(c.opts.judgeRate, ratelimit.Rate{}, c.opts.shard.n)
	if judgeRate != "" {
		c.notes = append(c.notes, "judge requests start at most "+judgeRate)
	}
	dc.Judge = c.jopts.judgeFor(c.records, r.red.Text, judgeLimit)
	r.judge = dc.Judge
	if dc.Judge == nil {
		c.noJudgeNote()
	}
	if dc.Judge != nil {
		var cerr error
		dc.Calibration, dc.LabelsPath, cerr = calibration(c.root, c.records, agent)
		dc.MinAgreement = c.jopts.minAgreement
		if cerr != nil {
			r.warn(t, "some labels could not be used to calibrate the judge: "+spec.RelErr(c.root, cerr).Error())
		}
	}
	return dc
}

// noReceiver is the error of a run asked for traces by a test binary that does not link
// the receiver: what asked for them, and how to link it.
func noReceiver(c *setup) error {
	why := "profile " + c.prof.ID + " sets traces: otlp"
	if c.opts.traces {
		why = "-rook.traces asks for the agent's spans"
	}
	return fmt.Errorf("%s, but this test binary does not link the traces package: run go generate ./... (rookgen imports it when a profile of the suite sets traces: otlp), or import _ %q in a file of this test package",
		why, capability.Import+"traces")
}
