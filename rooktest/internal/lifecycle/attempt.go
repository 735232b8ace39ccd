package lifecycle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// Attempt is one open..collect of a scenario, and its verdict.
type Attempt struct {
	ScenarioID string
	N          int
	Dir        string
	// NotRun says why the attempt could not go on (a phase it needs has not run).
	NotRun string
	// Verdict is the attempt's verdict, as verdict.yaml holds it; nil when judge was not
	// selected or could not run, and NotJudged says why.
	Verdict   *record.Verdict
	NotJudged string
	// Failures are the recorded hook failures that fail the attempt (open, execute,
	// collect); Problems are those reported without failing it (close).
	Failures []*PhaseError
	Problems []*PhaseError
	// Notes are the near misses of the hook contract its hooks printed (a key the
	// contract does not read, such as tool_calls), as phase: note.
	Notes []string
	// Left are the processes its hooks left running when they exited (ended then), as
	// phase: pid N: command line.
	Left []string
	// Abandoned is set when earlier, unfinishable records were kept aside in abandoned/<n>.
	Abandoned string
	// RecordErr is set when a record could not be written or read.
	RecordErr error
}

// Judged reports whether the attempt has a verdict.
func (a *Attempt) Judged() bool { return a.Verdict != nil }

type attemptRun struct {
	r     *Run
	sc    *scenario.Scenario
	n     int
	dir   string
	log   Logger
	hooks record.Hooks
	// unsaved is set when a hook's end is in hooks and not yet in hooks.json: it is
	// written with the next hook's start, or before anything else reads the records.
	unsaved bool
	lastEnd time.Time
	ranNow  bool
	// arts are the attempt's copied evidence files, once copied; skipped are those not
	// copied, and why.
	arts    []string
	artsSet bool
	skipped []record.SkippedFile
	errs    []error
	// trace is the attempt's trace id when traces are on; expect are the hook calls this
	// process gave a TRACEPARENT under which the agent's spans are expected; settled is set
	// once the trace is kept.
	trace   string
	expect  []record.HookCall
	settled bool
	// leftTraced says which hook calls with the trace's environment left processes running
	// (leftWithTrace): what those had not exported is lost.
	leftTraced []string
	// sealBroken says how the records an earlier process wrote were changed since
	// (store.VerifySealed), "" when they were not.
	sealBroken string
	// again is set when the attempt is decided again at the run's end with spans that came
	// late (decideAgain), saying so for its verdict: its stored verdict is the one they
	// change, not one to check.
	again string
	// observed is what the judge observed of the attempt, kept for response.json: nothing
	// is recorded between the two.
	observed *observe.Observations
	// probeLeft names what the MCP servers asked now left running ("mcp server ledger: pid
	// N: ..."), ended then.
	probeLeft []string
}

// attempt runs what the selection asks of attempt n and what its records have not done,
// in lifecycle order: it reads the attempt's records, asks Next what comes next after
// every phase (open, execute's turns, close, collect), runs it and records it, and ends by
// judging or by saying why it stopped. again, when set, judges it again from its records
// alone (decideAgain), saying why in its verdict. Every effect is named where it happens:
// hooks.json is written as each hook starts (runHook), the trace is settled once this
// process runs no more of the attempt's hooks, response.json is written last
// (writeResponse).
func (r *Run) attempt(ctx context.Context, sc *scenario.Scenario, n int, log Logger, again string) *Attempt {
	dir := attemptDir(filepath.Join(r.Dir, "scenarios", sc.ID), n, sc.Repeat)
	if log != nil && sc.Repeat > 1 {
		// With repeat, every progress line says which attempt it is about.
		inner := log
		log = func(line string) { inner(fmt.Sprintf("attempt %d: %s", n, line)) }
	}
	a := &attemptRun{r: r, sc: sc, n: n, dir: dir, log: log, hooks: record.Hooks{Version: 1}, again: again}
	sel := r.cfg.Selection
	if again != "" {
		sel = Selection{spec.Judge: true}
	}
	if again == "" && (r.cfg.Traces != nil || r.cfg.Decide.Judge != nil && decide.HasModelCriteria(sc)) {
		// Kept to be judged again at the run's end, with spans that came late or without
		// a judge caught guessing.
		r.mu.Lock()
		r.scenarios[sc.ID] = sc
		r.mu.Unlock()
	}
	if r.cfg.Traces != nil && again == "" {
		a.trace = r.cfg.Traces.Attempt(sc.ID, n, r.cfg.Redactor.Text)
	}
	res := &Attempt{ScenarioID: sc.ID, N: n, Dir: dir}

	// What an earlier process recorded of the attempt: read back, and checked against its
	// seal, or nothing judged from it is a Pass.
	if err := a.load(); err != nil {
		res.RecordErr, res.NotRun = err, err.Error()
		return res
	}
	if !a.fresh() {
		if err := store.VerifySealed(a.dir, false); err != nil {
			a.sealBroken = err.Error()
		}
	}
	here := Selection{}
	step := Next(a.state(here), sel, r.ID)
	switch step.Action {
	case Refuse:
		res.NotRun = step.Why
		return res
	case Restart:
		kept, err := a.abandon()
		if err != nil {
			res.RecordErr, res.NotRun = err, err.Error()
			return res
		}
		res.Abandoned = kept
		a.sealBroken = "" // what was changed is kept aside, and judges nothing
		if log != nil {
			log(fmt.Sprintf("%s: earlier records could not be continued; kept aside in %s, starting again from open", sc.ID, kept))
		}
	}

	// Before the first hook: the canary, the delay clock (from prepare's end, or from the
	// last recorded phase's), the hooks' state folder, and request.json with the scenario's
	// snapshot, written once.
	a.hooks.InFlight = nil
	if a.hooks.Canary == "" {
		a.hooks.Canary = hook.NewCanary()
	}
	if a.fresh() {
		r.mu.Lock()
		a.lastEnd = r.prepareEnd
		r.mu.Unlock()
	} else {
		a.lastEnd = onThisClock(a.recordedEnd())
	}
	for _, d := range []string{a.stateDir(), filepath.Join(r.Dir, "scenarios", sc.ID, "artifacts")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			res.RecordErr = fmt.Errorf("create %s: %w", d, err)
			res.NotRun = res.RecordErr.Error()
			return res
		}
	}
	if _, err := os.Stat(filepath.Join(a.dir, "request.json")); err != nil {
		red, prof := r.cfg.Redactor, r.cfg.Profile
		a.record(red.Bytes(filepath.Join(r.Dir, "scenarios", sc.ID, "snapshot.yaml"), sc.Source))
		a.record(red.JSON(filepath.Join(a.dir, "request.json"), record.Request{ScenarioID: sc.ID, Attempt: a.n,
			Goal: sc.Goal, SetupMessages: nonNil(sc.SetupMessages), Profile: prof.ID, Invoked: prof.Hooks[spec.Execute].Invoked()}))
	}

	// The phases. Open and execute are bounded by the scenario's budget; close runs even
	// when the run is being interrupted, bounded by its own timeout, so that it releases
	// what open took; collect runs under the run's context.
	budget := ctx
	if sc.Timeout > 0 {
		var cancel context.CancelFunc
		budget, cancel = context.WithTimeoutCause(ctx, sc.Timeout,
			fmt.Errorf("scenario %s went over its timeout_seconds budget of %s", sc.ID, sc.Timeout))
		defer cancel()
	}
	inv := invocation{scenario: sc.ID, session: fmt.Sprintf("%s/%s/%d", r.ID, sc.ID, n), stateDir: a.stateDir(), canary: a.hooks.Canary}
	hooks := r.cfg.Profile.Hooks
	for {
		step = Next(a.state(here), sel, r.ID)
		if step.Action != RunPhase {
			a.settleTrace() // this process runs no more of the attempt's hooks
			a.flush()
		}
		if ctx.Err() != nil && (step.Action == Judge || step.Phase == spec.Collect) {
			return a.writeResponse(res, fmt.Sprintf("not judged: the run was interrupted (%v); continue it with -rook.run=%s", context.Cause(ctx), r.ID))
		}
		switch step.Action {
		case Stop:
			return a.writeResponse(res, step.Why)
		case Judge:
			// The judge reads only what is recorded: the records as written, the evidence
			// files as copied.
			if err := a.load(); err != nil {
				res.RecordErr = err
				return a.writeResponse(res, "not judged: "+err.Error())
			}
			a.artifacts()
			a.judge(ctx, res)
			r.markPhase(spec.Judge)
			return a.writeResponse(res, "")
		case RunPhase: // the phase runs below, in lifecycle order
		default:
			return a.writeResponse(res, "not judged: "+step.String()) // Next restarts only first
		}
		inv.conversation = a.hooks.Conversation
		switch ph := step.Phase; ph {
		case spec.Open:
			rec, out, _ := a.runHook(budget, withPhase(inv, ph, hooks[ph]))
			a.hooks.Phases.Open = rec
			if out != nil && out.Conversation != "" && rec.OK {
				a.hooks.Conversation = out.Conversation
			}
			if rec.OK {
				a.hooks.CanaryUnplanted = a.unplanted()
			}
			a.unsaved = true // written with the next hook's start, or before the judge
		case spec.Execute:
			a.runTurns(budget, inv) // each turn is recorded as it ends
		case spec.Close:
			closing, stop := closeContext(ctx)
			a.hooks.Phases.Close, _, _ = a.runHook(closing, withPhase(inv, ph, hooks[ph]))
			stop()
			a.unsaved = true
		case spec.Collect:
			a.hooks.Phases.Collect, _, _ = a.runHook(ctx, withPhase(inv, ph, hooks[ph]))
			a.unsaved = true
		}
		here[step.Phase] = true
		r.markPhase(step.Phase)
	}
}

func (a *attemptRun) state(here Selection) State {
	return state(&a.hooks, a.r.cfg.Profile, a.turnsWanted(), here)
}

// runTurns runs the execute turns the records do not hold yet, threading the
// conversation, and records each as it ends.
func (a *attemptRun) runTurns(ctx context.Context, inv invocation) {
	sc, r := a.sc, a.r
	h := r.cfg.Profile.Hooks[spec.Execute]
	var turns []*record.PhaseRecord
	if a.hooks.Phases.Execute != nil {
		turns = a.hooks.Phases.Execute.Turns
	}
	waits := 0
	var tries []*record.PhaseRecord
	for turn := len(turns) + 1; turn <= sc.Turns(); turn++ {
		in := withPhase(inv, spec.Execute, h)
		in.turn, in.try, in.conversation, in.stdin = turn, len(tries)+1, a.hooks.Conversation, sc.TurnInput(turn)
		if sc.SimulatedUser != nil && turn > len(sc.SetupMessages) {
			msg, goOn, failed := a.userTurn(ctx, turn, turns)
			if failed != nil {
				turns = append(turns, failed)
				last := *failed
				last.Turns = turns
				a.hooks.Phases.Execute = &last
				a.unsaved = true
				return
			}
			if !goOn {
				a.unsaved = true
				return
			}
			in.stdin = msg
		}
		ticket, _ := r.cfg.Turns.Wait(ctx) // a context that ends stops the hook, which says so
		r.heldFor(sc.ID, turn, ticket)
		rec, out, perr := a.runHook(ctx, in)
		r.cfg.Turns.Started(ticket, rec.At) // the turn counts from when its hook began
		if again := a.waitIfAsked(rec, out, &waits); again {
			tries = append(tries, rec) // kept: what it reported is the turn's too
			turn--
			continue
		}
		if waits > 0 {
			rec.Notes = append(rec.Notes, fmt.Sprintf("run %d more time(s): the agent's API asked to wait (retry_after_ms) and gave no reply", waits))
			rec.Tries, tries, waits = tries, nil, 0
		}
		if perr == nil && out.Conversation != "" {
			a.hooks.Conversation = out.Conversation
		}
		if perr == nil && turn == 1 && sc.Turns() > 1 && a.hooks.Conversation == "" {
			rec.OK = false
			rec.Error = "returned no conversation handle (from open or execute), so later turns cannot continue the same conversation; the scenario stops"
		}
		turns = append(turns, rec)
		// The summary is copied from the turn after its outcome is final.
		last := *rec
		last.Turns, last.Stdout = turns, ""
		if last.Data != nil {
			// The reply lives in response.json and in turns[]; the phase summary keeps the
			// rest, as Rook's hooks.json does.
			data := make(map[string]any, len(rec.Data))
			for k, v := range rec.Data {
				if k != "output" && k != "agent_reply" {
					data[k] = v
				}
			}
			last.Data = data
		}
		a.hooks.Phases.Execute = &last
		a.unsaved = true
		r.noteExecute(perr)
		if !rec.OK {
			return
		}
	}
	if sim := a.hooks.Simulation; sim != nil && sim.Ended == "" {
		sim.Ended, sim.Why = record.OutOfTurns, fmt.Sprintf("the simulated user sent %d message(s), its max_turns, without saying the goal was reached", sc.SimulatedTurns())
		a.unsaved = true
	}
}

// runHook waits out the hook's delay, marks it in flight, runs it and records its end.
func (a *attemptRun) runHook(ctx context.Context, inv invocation) (*record.PhaseRecord, *hook.Output, *PhaseError) {
	if d := inv.hook.Delay; d > 0 {
		if left := d - time.Since(a.lastEnd); !a.lastEnd.IsZero() && left > 0 && a.log != nil {
			a.log(fmt.Sprintf("%s: waiting %s (delay_seconds: at least %s after the preceding phase)", inv.phase, left.Round(time.Millisecond), d))
		}
		if !a.lastEnd.IsZero() && time.Since(a.lastEnd) < d {
			a.flush() // what ended is on disk while the delay runs
		}
		if err := wait(ctx, d, a.lastEnd); err != nil {
			rec := &record.PhaseRecord{Ran: false, Script: inv.hook.Invoked(), Turn: inv.turn, Error: err.Error(), ExitCode: -1}
			return rec, nil, recordError(inv.phase, a.sc.ID, rec)
		}
	}
	inv.trace = a.traceEnv(inv)
	a.hooks.InFlight = &record.InFlight{Phase: string(inv.phase), Turn: inv.turn, At: time.Now().UTC()}
	a.save()
	rec, out, perr := a.r.invoke(ctx, inv, a.log)
	a.leftWithTrace(inv, rec)
	a.hooks.InFlight = nil
	a.lastEnd = time.Now()
	a.ranNow = true
	return rec, out, perr
}

func (a *attemptRun) stateDir() string { return filepath.Join(a.dir, "hook-state") }

func (a *attemptRun) record(err error) {
	if err != nil {
		a.errs = append(a.errs, err)
	}
}

func withPhase(inv invocation, ph spec.Phase, h spec.Hook, conv ...string) invocation {
	inv.phase, inv.hook = ph, h
	if len(conv) > 0 {
		inv.conversation = conv[0]
	}
	return inv
}

// unplanted checks, after open, that each of the profile's canary fixtures holds the
// attempt's canary, and names those that do not: a canary that was never planted cannot
// be missed.
func (a *attemptRun) unplanted() string {
	var missing []string
	for _, fx := range a.r.cfg.Profile.CanaryFixtures {
		path := filepath.Join(a.stateDir(), fx)
		b, _, err := readEvidenceFile(path)
		switch {
		case err != nil:
			missing = append(missing, fmt.Sprintf("%s (%v)", fx, err))
		case !bytes.Contains(b, []byte(a.hooks.Canary)):
			missing = append(missing, fx+" (it does not hold ROOK_CANARY)")
		}
	}
	return strings.Join(missing, ", ")
}

// The store of an attempt's hooks.json: read back before anything runs, written as every
// hook starts (record.InFlight marks the one running) and after the last, kept aside when a
// conversation cannot be continued.
//
// A hook's end is written with the next hook's start (one write and one sync per hook, not
// two), or before the judge, a stop or a delay_seconds wait: what is on disk is at most the
// parsing of one hook's output behind. A process that dies in that moment leaves the hook
// marked in flight, as if it had died a moment earlier, and a continued run treats it so.

func (a *attemptRun) fresh() bool {
	h := a.hooks.Phases
	return h.Open == nil && h.Execute == nil && h.Close == nil && h.Collect == nil
}

// recordedEnd is when the last recorded phase ended, so that a delay counts from there.
func (a *attemptRun) recordedEnd() time.Time {
	var last time.Time
	h := a.hooks.Phases
	for _, rec := range []*record.PhaseRecord{h.Open, h.Execute, h.Close, h.Collect} {
		if rec == nil {
			continue
		}
		if rec.EndedAt.After(last) {
			last = rec.EndedAt
		}
	}
	return last
}

func (a *attemptRun) save() {
	a.record(a.r.cfg.Redactor.JSON(filepath.Join(a.dir, "hooks.json"), a.hooks))
	a.unsaved = false
}

// flush writes what ended and is not yet on disk.
func (a *attemptRun) flush() {
	if a.unsaved {
		a.save()
	}
}

// load reads the attempt's hooks.json, if any. A file that does not parse is refused.
func (a *attemptRun) load() error {
	h, err := store.ReadHooks(a.dir)
	if err != nil {
		return err
	}
	a.hooks = *h
	return nil
}

// abandon keeps the attempt's records aside in abandoned/<n>/ and starts it afresh.
func (a *attemptRun) abandon() (string, error) {
	entries, err := os.ReadDir(a.dir)
	if err != nil {
		return "", fmt.Errorf("abandon %s: %w", a.dir, err)
	}
	var kept string
	for n := 1; ; n++ {
		kept = filepath.Join(a.dir, "abandoned", strconv.Itoa(n))
		if _, err := os.Stat(kept); errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	if err := os.MkdirAll(kept, 0o755); err != nil {
		return "", fmt.Errorf("abandon %s: %w", a.dir, err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "abandoned", "attempts", "snapshot.yaml":
			continue
		}
		if err := os.Rename(filepath.Join(a.dir, e.Name()), filepath.Join(kept, e.Name())); err != nil {
			return "", fmt.Errorf("abandon %s: %w", a.dir, err)
		}
	}
	a.hooks = record.Hooks{Version: 1}
	return kept, nil
}
