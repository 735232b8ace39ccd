package rooktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/rooktest/internal/capability"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// job is one scenario handed to the scheduler. Its progress lines wait in lines until the
// scenario's subtest, running on its own goroutine, logs them.
type job struct {
	id string
	// sc is the scenario, loaded from its file when the job starts and dropped once it is
	// reported: a long suite holds only the scenarios in flight.
	sc *scenario.Scenario
	// took is how long the scenario ran, its wait for a slot aside.
	took    time.Duration
	mu      sync.Mutex
	lines   []string
	notify  chan struct{}
	done    chan struct{}
	outcome *lifecycle.Outcome
	// claimed says a subtest reports the job.
	claimed bool
}

func (j *job) log(line string) {
	j.mu.Lock()
	j.lines = append(j.lines, line)
	j.mu.Unlock()
	select {
	case j.notify <- struct{}{}:
	default:
	}
}

func (j *job) take() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	l := j.lines
	j.lines = nil
	return l
}

// Scenario returns the subtest body for scenario id. The generated test passes it to t.Run
// under the scenario's literal name. The body reports the scenario's outcome: hook
// failures as errors, then one subtest per criterion, then forbidden. Start has queued the
// scenarios go test -run selects, and they run, up to the run's concurrency, while the
// subtests wait in turn for theirs. When Start could not tell what -run selects (-skip, or
// alternatives at the top of -run), the body queues its scenario and pauses with
// t.Parallel, so that every selected scenario is queued before any outcome is awaited.
//
// It is never inlined: a generated test calls it once per scenario in one function, and
// thousands of inlined closures made that function's compile time and memory grow faster
// than the suite (5,000 scenarios: 129 s and 11 GB, against seconds without inlining).
//
//go:noinline
func (r *Run) Scenario(id string) func(*testing.T) {
	return func(t *testing.T) {
		t.Helper()
		r.scenario(tshim{t}, id)
	}
}

func (r *Run) scenario(t tb, id string) {
	t.Helper()
	p, ok := r.planOf(id)
	if !ok {
		fatalf(t, "rooktest: scenario %s is not in suite %s", id, r.suite.Profile.Path)
	}
	attr(t, "rook.scenario", id)
	switch p.decision {
	case skip:
		skipln(t, p.why)
	case unrunnable:
		attr(t, "rook.status", "unrunnable")
		if r.opts.strict {
			fatalf(t, "unrunnable (failing under -rook.strict): %s", p.why)
		}
		skipf(t, "unrunnable: %s", p.why)
	}
	j := r.claim(id, p.fed)
	defer r.release(j)
	if !r.ahead {
		t.Parallel()
	}
	r.report(t, j)
}

// claim is the job of scenario id for its subtest: the one Start feeds the scheduler
// (fed), or a new one.
func (r *Run) claim(id string, fed bool) *job {
	var j *job
	if fed {
		j = r.jobFor(id)
	}
	r.mu.Lock()
	if j == nil || j.claimed {
		r.mu.Unlock()
		j = r.enqueue(id)
		r.mu.Lock()
	}
	j.claimed = true
	if i, ok := r.index(id); ok { // a job is claimed only for a scenario of the suite
		r.claimed[i] = true
	}
	r.mu.Unlock()
	return j
}

// jobFor is scenario id's job, made by whichever of its subtest and the feeder comes first.
func (r *Run) jobFor(id string) *job {
	r.mu.Lock()
	defer r.mu.Unlock()
	if j := r.byID[id]; j != nil {
		return j
	}
	j := newJob(id)
	r.byID[id] = j
	return j
}

func newJob(id string) *job {
	return &job{id: id, notify: make(chan struct{}, 1), done: make(chan struct{})}
}

// release forgets a reported job: a long run keeps no outcome in memory (its records are
// on disk).
func (r *Run) release(j *job) {
	r.mu.Lock()
	if r.byID[j.id] == j {
		delete(r.byID, j.id)
	}
	r.mu.Unlock()
}

func (r *Run) enqueue(id string) *job {
	j := newJob(id)
	r.mu.Lock()
	r.queued++
	r.byID[id] = j
	r.mu.Unlock()
	r.startOnce.Do(func() { go r.dispatch() })
	r.queue <- j
	return j
}

// dispatch runs prepare once, then every queued scenario, with at most concurrency in
// flight whatever -parallel and GOMAXPROCS are.
func (r *Run) dispatch() {
	defer close(r.done)
	// Prepare runs once, before the first scenario that calls the agent: a resumed run
	// whose every verdict is carried forward never runs it.
	var once sync.Once
	var perr *lifecycle.PhaseError
	prepare := func() *lifecycle.PhaseError {
		once.Do(func() {
			perr = r.run.Prepare(r.ctx, func(line string) { logln(r.t, r.show(line)) })
			r.leftRunning(r.t, "prepare", r.run.PrepareLeft())
			if perr != nil {
				errorln(r.t, r.show(phaseReport(perr)))
				return
			}
			if r.judge != nil && r.judges {
				// Once, before the first judged criterion: a judge that cannot answer in
				// the protocol is said here, not scenario after scenario.
				if err := r.judge.Preflight(r.ctx); err != nil {
					r.warn(r.t, r.show(err.Error()))
				}
			}
		})
		return perr
	}
	if r.prior == nil && !r.late() && r.selected > 0 {
		_ = prepare() // its failure is reported, and each scenario says it was not run
	}
	var wg sync.WaitGroup
	for j := range r.queue {
		r.slots.Acquire()
		select {
		case <-r.stop:
			// The test has ended, and no subtest is waiting for this scenario.
			j.outcome = lifecycle.NotRun(&scenario.Scenario{Scenario: spec.Scenario{ID: j.id}}, "its subtest did not run")
			close(j.done)
			r.slots.Release()
			continue
		default:
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer r.slots.Release()
			defer close(j.done)
			sc, err := r.load(j.id)
			if err != nil {
				j.outcome = &lifecycle.Outcome{Scenario: &scenario.Scenario{Scenario: spec.Scenario{ID: j.id}}, Err: err}
				return
			}
			j.sc = sc
			if r.prior != nil {
				if o, ok := r.run.Carry(r.prior, j.sc); ok {
					j.outcome = o
					return
				}
			}
			if r.late() {
				r.notStarted.Add(1)
				j.outcome = lifecycle.NotRun(j.sc, fmt.Sprintf("go test's -timeout is near (no scenario starts after %s): continue with -rook.run=%s, and give a suite this long go test -timeout 0 or a generous one",
					r.startBy.Format(time.TimeOnly), r.run.ID))
				return
			}
			if why := r.budget.over(r.run.ID); why != "" {
				j.outcome = lifecycle.NotRun(j.sc, why)
				return
			}
			if perr := prepare(); perr != nil {
				j.outcome = lifecycle.NotRun(j.sc, "prepare failed: "+perr.Error())
				return
			}
			start := time.Now()
			j.outcome = r.run.Scenario(r.ctx, j.sc, j.log)
			j.took = time.Since(start)
			r.budget.spend(j.outcome)
		}()
	}
	wg.Wait()
}

// load reads scenario id's file for its job, as Start found it: a file changed or
// deleted since fails the scenario, saying how to regenerate.
func (r *Run) load(id string) (*scenario.Scenario, error) {
	i, _ := r.index(id) // a job is made only for a planned scenario
	f := r.suite.Scenarios[i].File
	sc, err := scenario.Load(filepath.Join(r.root, f.Path))
	if err != nil {
		return nil, spec.RelErr(r.root, err)
	}
	if sc.SHA256 != f.SHA256 {
		return nil, fmt.Errorf("%s changed during the run: run go test again (after go generate ./... if it changed for good)", f.Path)
	}
	return sc, nil
}

// late reports whether go test's deadline is too near to start another scenario.
func (r *Run) late() bool { return !r.startBy.IsZero() && time.Now().After(r.startBy) }

// finish runs when the test and its subtests have ended: it writes report.yaml and the
// final run.yaml and logs the totals.
func (r *Run) finish() {
	defer r.cancel()
	r.startOnce.Do(func() { close(r.done) })
	close(r.stop)
	r.feeding.Wait()
	close(r.queue)
	<-r.done
	r.mu.Lock()
	jobs, started := r.queued, r.claimed
	// Every subtest has ended: the jobs no subtest claimed are not needed to write the
	// report.
	r.byID = nil
	r.mu.Unlock()
	if r.opts.run == "" {
		// go test -run narrows a new run's plan; a continued run keeps the plan it has.
		ran := func(id string) bool {
			i, ok := r.index(id)
			return ok && started[i]
		}
		r.run.Narrow(ran, "not selected: go test -run did not match its subtest, or -failfast stopped before it")
	}
	r.mu.Lock()
	r.claimed = nil // not needed to write the report
	r.mu.Unlock()
	if halted, why := r.run.Halted(); halted {
		errorf(r.t, "rook run %s halted: %s; the scenarios after it were not run, and everything recorded is kept (continue with -rook.run=%s)",
			r.run.ID, r.show(why), r.run.ID)
	}
	if n := r.notStarted.Load(); n > 0 {
		// The subtests that were not started skip; the run must not print ok for them.
		errorf(r.t, "rook run %s: %d scenario(s) were not started because go test's -timeout was near; everything recorded is kept: continue with %s, and give a suite this long go test -timeout 0 or a generous one",
			r.run.ID, n, r.continueCommand())
	}
	r.budget.report(r.t, r.run.ID, r.continueCommand())
	if why := stoppedEarly(r.ctx); why != "" {
		// Whatever the verdicts say (a judge call cut short leaves its rows Unable to
		// Verify, which skip), an interrupted run never exits 0.
		errorf(r.t, "rook run %s was interrupted (%s): what was running was stopped and everything recorded is kept; continue with %s",
			r.run.ID, why, r.continueCommand())
	}
	defer r.run.Close()
	if r.traces != nil {
		defer func() { _ = r.traces.Close() }() // once every attempt has settled its trace
		r.settleTraces()
	}
	// The test's own context has ended by now (finish is a cleanup); the verdicts that late
	// spans change are still decided, unless the run was interrupted.
	last := context.WithoutCancel(r.ctx)
	if stoppedEarly(r.ctx) != "" {
		last = r.ctx
	}
	rep, err := r.run.Finish(last, time.Now())
	if capability.Page != nil {
		err = errors.Join(err, capability.Page(r.run.Dir))
	}
	if err != nil {
		errorf(r.t, "rooktest: write run records: %v", err)
		return
	}
	tt := rep.Totals
	logf(r.t, "rook run %s: %d passed, %d failed, %d unable to verify, %d unjudged, %d not run, %d unrunnable, %d carried forward of %d planned; report in %s; continue it with: %s",
		r.run.ID, tt.Passed, tt.Failed, tt.Unverifiable, tt.Unjudged, tt.NotRun, tt.Unrunnable, tt.CarriedForward, tt.Planned,
		filepath.Join(r.run.Dir, "report.yaml"), r.continueCommand())
	if r.opts.autoConcurrency {
		logf(r.t, "rook run %s: -rook.concurrency=auto had %d in flight at the end (up to %d)", r.run.ID, r.slots.Limit(), r.concurrency)
	}
	r.undecided(rep)
	if r.judge != nil {
		r.unanswered(rep)
	}
	r.guessed(rep)
	lateSpans(r.t, r.run.ID, r.show, rep.LateSpans)
	r.capabilities()
	r.silentTraces()
	r.toolTypos()
	r.opts.gate.decide(r.t, r.run.Dir)
	if jobs > 0 {
		// Reading back a file this run just wrote makes go test's result uncacheable, so
		// that a plain go test calls the agent every time instead of replaying a pass.
		_, _ = os.ReadFile(filepath.Join(r.run.Dir, "report.yaml"))
	}
}

// judging reports whether this process judges a scenario with llm_judge criteria.
func (r *Run) judging(scenarios []brief) bool {
	if !r.sel[spec.Judge] {
		return false
	}
	for _, sc := range scenarios {
		if p, _ := r.planOf(sc.id); p.decision != include {
			continue
		}
		if sc.has(judgedModel) {
			return true
		}
	}
	return false
}

// undecided fails a run that judged and decided no criterion at all (every scenario
// Unable to Verify, unrunnable or not run, or none planned): such a run must not print ok.
// -rook.allow-undecided lets it pass.
func (r *Run) undecided(rep *record.Report) {
	t := rep.Totals
	if !r.sel[spec.Judge] || t.Decided > 0 || rep.Metrics.CriteriaDecided > 0 || r.opts.allowUndecided {
		return
	}
	if r.opts.shard.n > 1 && t.Planned == 0 && t.Unrunnable == 0 {
		// A small suite leaves some shards of a wide CI matrix empty; that is no failure.
		logf(r.t, "rook run %s: shard %s holds no scenario of this suite; prepare did not run", r.run.ID, r.opts.shard)
		return
	}
	if r.opts.shard.n > 1 {
		// A shard follows the rule the whole run would for its scenarios: whether the run
		// decided anything is a question of the merged run, which rookgen report -merge asks.
		logf(r.t, "rook run %s: shard %s decided nothing on its own (no criterion passed or failed); whether the run decided anything is judged over the merged run (rookgen report -merge)",
			r.run.ID, r.opts.shard)
		return
	}
	var why []string
	for _, c := range rep.Clusters {
		if c.Kind == "unverifiable" {
			why = append(why, fmt.Sprintf("%s: %d scenario(s)", c.Why, len(c.Scenarios)))
		}
	}
	if t.Unrunnable > 0 {
		why = append(why, fmt.Sprintf("unrunnable: %d scenario(s)", t.Unrunnable))
	}
	if t.NotRun > 0 {
		why = append(why, fmt.Sprintf("not run: %d scenario(s)", t.NotRun))
	}
	if t.Untrusted > 0 {
		why = append(why, fmt.Sprintf("untrusted: %d scenario(s) whose verdict.yaml did not match their records", t.Untrusted))
	}
	if n := t.Unjudged - t.Untrusted; n > 0 {
		why = append(why, fmt.Sprintf("not judged: %d scenario(s)", n))
	}
	if t.Planned == 0 && t.Unrunnable == 0 {
		why = append(why, "no scenario was planned")
	}
	if len(why) == 0 {
		why = append(why, fmt.Sprintf("%d scenario(s) planned, %d with a verdict, none of whose criteria passed or failed", t.Planned, t.Executed-t.Unjudged))
	}
	errorf(r.t, "rook run %s decided nothing: no criterion passed or failed (%s); pass -rook.allow-undecided to accept a run that decides nothing",
		r.run.ID, strings.Join(why, "; "))
}

// warn says something that decides whether a test means anything: on the test's log,
// and, since go test shows a passing test's log only with -v, on the test binary's stderr
// too without -v (go test shows it in local directory mode, go test -json and gotestsum
// carry it). Under -rook.strict it fails the test.
func (r *Run) warn(t tb, msg string) {
	if r.opts.strict {
		errorln(t, "rooktest: "+msg+" [failing under -rook.strict]")
		return
	}
	notice(t, "rooktest: warning: "+msg)
}

// notice logs msg and, without -v, writes it on the test binary's stderr as well.
func notice(t tb, msg string) {
	logln(t, msg)
	if !testing.Verbose() {
		fmt.Fprintf(os.Stderr, "%s: %s\n", t.Name(), msg)
	}
}

// continueCommand is the go test command line that continues this run.
func (r *Run) continueCommand() string {
	pkg := "."
	if wd, err := os.Getwd(); err == nil {
		if root, _, err := spec.ModuleRoot(wd); err == nil {
			if rel, err := filepath.Rel(root, wd); err == nil {
				pkg = "./" + filepath.ToSlash(rel)
			}
		}
	}
	return fmt.Sprintf("go test %s -run '^%s$' -rook.run=%s", pkg, r.t.Name(), r.run.ID)
}

// feed hands the scheduler its scenarios. When exact, the scenarios -run selects (ahead)
// are known: they are fed now, in file order, as the scheduler has room for them, and
// their subtests run one after another, each waiting for its own outcome; a job exists
// only from shortly before its scenario starts until its subtest has reported it, so a
// long suite holds a handful. Otherwise each subtest queues its scenario and pauses (see
// Scenario), and every one is queued before any runs.
func (r *Run) feed(ahead []string, exact bool, scenarios int) {
	if !exact {
		r.queue = make(chan *job, scenarios)
		return
	}
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
}
