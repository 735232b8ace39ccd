package lifecycle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/judge"
	"github.com/rookgo/rookgo/internal/spec"
)

// Attempt is one open..collect of a scenario, and its verdict.
type Attempt struct {
	ScenarioID string
	N          int
	Dir        string
	// NotRun says why the attempt could not go on (a phase it needs has not run).
	NotRun string
	// Judged is false when judge was not selected or could not run; NotJudged says why.
	Judged    bool
	NotJudged string
	Status    judge.Status
	Reason    string
	Rows      []judge.Row
	Hits      []judge.ForbiddenHit
	// Failures are the recorded hook failures that fail the attempt (open, execute,
	// collect); Problems are those reported without failing it (close).
	Failures []*PhaseError
	Problems []*PhaseError
	// Abandoned is set when earlier, unfinishable records were kept aside in abandoned/<n>.
	Abandoned string
	// RecordErr is set when a record could not be written or read.
	RecordErr error
	LatencyMs int64
	Turns     int
	Usage     *hook.Usage
}

type attemptRun struct {
	r       *Run
	sc      *spec.Scenario
	n       int
	dir     string
	log     Logger
	hooks   HooksFile
	lastEnd time.Time
	ranNow  bool
	errs    []error
}

func (a *attemptRun) defined(ph spec.Phase) bool {
	_, ok := a.r.cfg.Profile.Hooks[ph]
	return ok
}

// progress is what an attempt's records say it has done.
type progress struct {
	openOK, openFailed          bool
	turnsOK                     int
	execFailed, execOK, execRan bool
	closeRan                    bool
	collectOK, collectRan       bool
	interrupted                 spec.Phase
}

func (a *attemptRun) progress() progress {
	h := a.hooks.Phases
	var p progress
	p.openOK = !a.defined(spec.Open) || (h.Open != nil && h.Open.OK)
	p.openFailed = h.Open != nil && !h.Open.OK
	if h.Execute != nil {
		for _, t := range h.Execute.Turns {
			p.execRan = true
			if !t.OK {
				p.execFailed = true
				break
			}
			p.turnsOK++
		}
	}
	p.execOK = !p.execFailed && p.turnsOK == a.sc.Turns()
	p.closeRan = h.Close != nil
	p.collectRan = h.Collect != nil
	p.collectOK = h.Collect != nil && h.Collect.OK
	if a.hooks.InFlight != nil {
		p.interrupted = a.hooks.InFlight.Phase
	}
	return p
}

// attempt runs what the selection asks of attempt n and what its records have not done.
func (r *Run) attempt(ctx context.Context, sc *spec.Scenario, n int, log Logger) *Attempt {
	dir := attemptDir(filepath.Join(r.Dir, "scenarios", sc.ID), n, sc.Repeat)
	a := &attemptRun{r: r, sc: sc, n: n, dir: dir, log: log, hooks: HooksFile{Version: 1}}
	res := &Attempt{ScenarioID: sc.ID, N: n, Dir: dir}
	if err := a.load(); err != nil {
		res.RecordErr = err
		res.NotRun = err.Error()
		return res
	}
	sel := r.cfg.Selection
	p := a.progress()
	restart := (sel[spec.Execute] && !p.execOK && (p.execRan || p.interrupted == spec.Execute || p.interrupted == spec.Open || p.openFailed)) ||
		(sel[spec.Open] && (p.openFailed || p.interrupted == spec.Open))
	if restart {
		if a.defined(spec.Open) && !sel[spec.Open] {
			res.NotRun = fmt.Sprintf("its conversation was interrupted or failed in run %s and cannot resume mid-conversation; continue with phases that include open to start it again", r.ID)
			return res
		}
		kept, err := a.abandon()
		if err != nil {
			res.RecordErr, res.NotRun = err, err.Error()
			return res
		}
		res.Abandoned = kept
		if log != nil {
			log(fmt.Sprintf("%s: earlier records could not be continued; kept aside in %s, starting again from open", sc.ID, kept))
		}
		p = a.progress()
	}
	a.hooks.InFlight = nil
	if !a.fresh() && !restart {
		a.lastEnd = a.recordedEnd()
	} else {
		r.mu.Lock()
		a.lastEnd = r.prepareEnd
		r.mu.Unlock()
	}

	for _, d := range []string{a.stateDir(), filepath.Join(r.Dir, "scenarios", sc.ID, "artifacts")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			res.RecordErr, res.NotRun = err, fmt.Sprintf("create %s: %v", d, err)
			return res
		}
	}
	red := r.cfg.Redactor
	if _, err := os.Stat(filepath.Join(dir, "request.json")); err != nil {
		a.record(red.Bytes(filepath.Join(r.Dir, "scenarios", sc.ID, "snapshot.yaml"), sc.Source))
		prof := r.cfg.Profile
		a.record(red.JSON(filepath.Join(dir, "request.json"), Request{ScenarioID: sc.ID, Attempt: n,
			Goal: sc.Goal, SetupMessages: nonNil(sc.SetupMessages), Profile: prof.ID, Invoked: prof.Hooks[spec.Execute].Invoked()}))
	}

	budget := ctx
	if sc.Timeout > 0 {
		var cancel context.CancelFunc
		budget, cancel = context.WithTimeoutCause(ctx, sc.Timeout,
			fmt.Errorf("scenario %s went over its timeout_seconds budget of %s", sc.ID, sc.Timeout))
		defer cancel()
	}
	inv := invocation{scenario: sc.ID, session: fmt.Sprintf("%s/%s/%d", r.ID, sc.ID, n), stateDir: a.stateDir(),
		conversation: a.hooks.Conversation}

	prof := r.cfg.Profile
	if h, ok := prof.Hooks[spec.Open]; ok && sel[spec.Open] && !p.openOK {
		rec, out, _ := a.phase(budget, withPhase(inv, spec.Open, h))
		a.hooks.Phases.Open = rec
		if out != nil && out.Conversation != "" && rec.OK {
			a.hooks.Conversation = out.Conversation
		}
		a.save()
		r.markPhase(spec.Open)
		p = a.progress()
	}
	if sel[spec.Execute] && !p.execOK && p.openOK {
		a.execute(budget, inv)
		r.markPhase(spec.Execute)
		p = a.progress()
	}
	openRan := a.hooks.Phases.Open != nil
	execEnded := p.execOK || p.execFailed || p.openFailed
	if h, ok := prof.Hooks[spec.Close]; ok && sel[spec.Close] && !p.closeRan && (openRan || p.execRan) {
		if !execEnded && !p.openFailed {
			return a.finish(res, fmt.Sprintf("close waits for execute, which has not completed in run %s", r.ID))
		}
		// close releases what open took, even when the run is being interrupted: it is
		// bounded by its own timeout, not by the run's context.
		rec, _, _ := a.phase(context.WithoutCancel(ctx), withPhase(inv, spec.Close, h, a.hooks.Conversation))
		a.hooks.Phases.Close = rec
		a.save()
		r.markPhase(spec.Close)
		p = a.progress()
	}
	if ctx.Err() != nil {
		return a.finish(res, fmt.Sprintf("not judged: the run was interrupted (%v); continue it with -rook.run=%s", context.Cause(ctx), r.ID))
	}
	closeEnded := !a.defined(spec.Close) || p.closeRan || !(openRan || p.execRan)
	if h, ok := prof.Hooks[spec.Collect]; ok && sel[spec.Collect] && !p.collectOK && p.execRan {
		if !closeEnded || !execEnded {
			return a.finish(res, fmt.Sprintf("collect waits for close, which has not run in run %s", r.ID))
		}
		rec, _, _ := a.phase(ctx, withPhase(inv, spec.Collect, h, a.hooks.Conversation))
		a.hooks.Phases.Collect = rec
		a.save()
		r.markPhase(spec.Collect)
		p = a.progress()
	}
	if !sel[spec.Judge] {
		return a.finish(res, "")
	}
	// The judge reads only what is recorded: the records as written, secrets redacted.
	if err := a.load(); err != nil {
		res.RecordErr = err
		return a.finish(res, "not judged: "+err.Error())
	}
	collectEnded := !a.defined(spec.Collect) || p.collectRan || !p.execRan
	switch {
	case !execEnded:
		return a.finish(res, fmt.Sprintf("not judged: execute has not completed in run %s", r.ID))
	case !closeEnded:
		return a.finish(res, fmt.Sprintf("not judged: close has not run in run %s", r.ID))
	case !collectEnded:
		return a.finish(res, fmt.Sprintf("not judged: collect has not run in run %s", r.ID))
	}
	a.judge(res)
	r.markPhase(spec.Judge)
	return a.finish(res, "")
}

// execute runs the turns the records do not hold yet, threading the conversation.
func (a *attemptRun) execute(ctx context.Context, inv invocation) {
	sc, r := a.sc, a.r
	h := r.cfg.Profile.Hooks[spec.Execute]
	var turns []*PhaseRecord
	if a.hooks.Phases.Execute != nil {
		turns = a.hooks.Phases.Execute.Turns
	}
	for turn := len(turns) + 1; turn <= sc.Turns(); turn++ {
		in := withPhase(inv, spec.Execute, h)
		in.turn, in.conversation, in.stdin = turn, a.hooks.Conversation, sc.TurnInput(turn)
		rec, out, perr := a.phase(ctx, in)
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
		a.save()
		r.noteExecute(perr)
		if !rec.OK {
			return
		}
	}
}

// phase waits out the hook's delay, marks it in flight, runs it and records its end.
func (a *attemptRun) phase(ctx context.Context, inv invocation) (*PhaseRecord, *hook.Output, *PhaseError) {
	if d := inv.hook.Delay; d > 0 {
		if left := d - time.Since(a.lastEnd); !a.lastEnd.IsZero() && left > 0 && a.log != nil {
			a.log(fmt.Sprintf("%s: waiting %s (delay_seconds: at least %s after the preceding phase)", inv.phase, left.Round(time.Millisecond), d))
		}
		if err := wait(ctx, d, a.lastEnd); err != nil {
			rec := &PhaseRecord{Ran: false, Script: inv.hook.Invoked(), Turn: inv.turn, Error: err.Error(), ExitCode: -1}
			return rec, nil, recordError(inv.phase, a.sc.ID, rec)
		}
	}
	a.hooks.InFlight = &InFlight{Phase: inv.phase, Turn: inv.turn, At: time.Now().UTC().Format(time.RFC3339Nano)}
	a.save()
	rec, out, perr := a.r.invoke(ctx, inv, a.log)
	a.hooks.InFlight = nil
	a.lastEnd = time.Now()
	a.ranNow = true
	return rec, out, perr
}

func (a *attemptRun) stateDir() string { return filepath.Join(a.dir, "hook-state") }

func (a *attemptRun) fresh() bool {
	h := a.hooks.Phases
	return h.Open == nil && h.Execute == nil && h.Close == nil && h.Collect == nil
}

// recordedEnd is when the last recorded phase ended, so that a delay counts from there.
func (a *attemptRun) recordedEnd() time.Time {
	var last time.Time
	h := a.hooks.Phases
	for _, rec := range []*PhaseRecord{h.Open, h.Execute, h.Close, h.Collect} {
		if rec == nil {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, rec.EndedAt); err == nil && t.After(last) {
			last = t
		}
	}
	return last
}

func (a *attemptRun) save() {
	a.record(a.r.cfg.Redactor.JSON(filepath.Join(a.dir, "hooks.json"), a.hooks))
}

func (a *attemptRun) record(err error) {
	if err != nil {
		a.errs = append(a.errs, err)
	}
}

// load reads the attempt's hooks.json, if any. A file that does not parse is refused.
func (a *attemptRun) load() error {
	data, err := os.ReadFile(filepath.Join(a.dir, "hooks.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", filepath.Join(a.dir, "hooks.json"), err)
	}
	var h HooksFile
	if err := decodeJSON(data, &h); err != nil {
		return fmt.Errorf("%s is corrupt: %w", filepath.Join(a.dir, "hooks.json"), err)
	}
	p := h.Phases
	for _, rec := range []*PhaseRecord{p.Open, p.Execute, p.Close, p.Collect} {
		if rec == nil {
			continue
		}
		hook.Numbers(rec.Data)
		for _, t := range rec.Turns {
			hook.Numbers(t.Data)
		}
	}
	a.hooks = h
	return nil
}

// decodeJSON decodes a record with numbers as the hooks printed them.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
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
	a.hooks = HooksFile{Version: 1}
	return kept, nil
}

// finish fills in what the records say and writes response.json.
func (a *attemptRun) finish(res *Attempt, notJudged string) *Attempt {
	if notJudged != "" {
		res.NotJudged = notJudged
	} else if !res.Judged {
		res.NotJudged = fmt.Sprintf("not judged: continue with -rook.run=%s", a.r.ID)
	}
	res.Failures, res.Problems = a.failures()
	ev, transcript, raw := a.evidence()
	for _, t := range ev.Turns {
		res.LatencyMs += t.LatencyMs
	}
	res.Turns, res.Usage = len(ev.Turns), ev.Usage
	if !a.fresh() {
		status := "completed"
		if !ev.AgentRan || len(res.Failures) > 0 {
			status = "failed"
		}
		var calls *[]hook.Call
		if ev.CallsObserved {
			c := nonNil(ev.Calls)
			calls = &c
		}
		var artifacts []string
		for _, rec := range []*PhaseRecord{a.hooks.Phases.Execute, a.hooks.Phases.Collect} {
			if rec != nil {
				artifacts = append(artifacts, a.copyEvidence(rec.Data, len(artifacts)+1)...)
			}
		}
		a.record(a.r.cfg.Redactor.JSON(filepath.Join(a.dir, "response.json"), Response{ScenarioID: a.sc.ID, Attempt: res.N,
			Status: status, Output: ev.Output(), RawResponse: raw, Transcript: nonNil(transcript), Calls: calls,
			Artifacts: nonNil(artifacts), LatencyMs: res.LatencyMs, Turns: res.Turns, Usage: ev.Usage}))
	}
	res.RecordErr = errors.Join(append([]error{res.RecordErr}, a.errs...)...)
	return res
}

// failures rebuilds the hook failures from the records, whichever process ran them.
func (a *attemptRun) failures() (fails, problems []*PhaseError) {
	h := a.hooks.Phases
	if h.Open != nil && !h.Open.OK {
		fails = append(fails, recordError(spec.Open, a.sc.ID, h.Open))
	}
	if h.Execute != nil {
		for _, t := range h.Execute.Turns {
			if !t.OK {
				fails = append(fails, recordError(spec.Execute, a.sc.ID, t))
			}
		}
	}
	if h.Close != nil && !h.Close.OK {
		problems = append(problems, recordError(spec.Close, a.sc.ID, h.Close))
	}
	if h.Collect != nil && !h.Collect.OK {
		fails = append(fails, recordError(spec.Collect, a.sc.ID, h.Collect))
	}
	return fails, problems
}

func recordError(ph spec.Phase, scenario string, rec *PhaseRecord) *PhaseError {
	return &PhaseError{Phase: ph, Turn: rec.Turn, Scenario: scenario, Script: rec.Script, ExitCode: rec.ExitCode,
		TimedOut: rec.TimedOut, Stopped: rec.Stopped, Stderr: rec.Stderr, Err: errors.New(rec.Error)}
}

// judge decides the attempt from its records, or reads the verdict an earlier process
// wrote when nothing ran since.
func (a *attemptRun) judge(res *Attempt) {
	path := filepath.Join(a.dir, "verdict.yaml")
	if !a.ranNow {
		if data, err := os.ReadFile(path); err == nil {
			var v Verdict
			if err := yaml.Unmarshal(data, &v); err == nil && v.Status != "" {
				res.Judged, res.Status, res.Reason, res.Rows, res.Hits = true, v.Status, v.UnverifiableReason, v.Criteria, v.ForbiddenHits
				subtests(a.sc, res.Rows)
				return
			}
		}
	}
	ev, _, _ := a.evidence()
	res.Rows = judge.Evaluate(a.sc.Criteria, ev)
	res.Hits = judge.Forbidden(a.sc.Forbidden, ev)
	res.Status, res.Reason = judge.ScenarioStatus(res.Rows, res.Hits, len(a.sc.Forbidden) > 0 && ev.AgentRan)
	fails, _ := a.failures()
	if len(fails) > 0 {
		res.Status, res.Reason = judge.Fail, ""
	}
	res.Judged = true
	v := Verdict{ScenarioID: a.sc.ID, RunID: a.r.ID, Status: res.Status, UnverifiableReason: res.Reason,
		Criteria: nonNil(res.Rows), ForbiddenHits: nonNil(res.Hits), Turns: len(ev.Turns), Usage: ev.Usage}
	for _, t := range ev.Turns {
		v.LatencyMs += t.LatencyMs
	}
	var msgs []string
	for _, f := range fails {
		msgs = append(msgs, f.Error())
	}
	v.Failure = strings.Join(msgs, "; ")
	countRows(&v, res.Rows)
	a.record(a.r.cfg.Redactor.YAML(path, v))
}

// subtests names rows read back from a verdict as the scenario's criteria name them.
func subtests(sc *spec.Scenario, rows []judge.Row) {
	for i := range rows {
		for _, c := range sc.Criteria {
			if c.ID == rows[i].CriterionID {
				rows[i].Subtest = c.Subtest()
			}
		}
		if rows[i].Subtest == "" {
			rows[i].Subtest = rows[i].CriterionID
		}
	}
}

func withPhase(inv invocation, ph spec.Phase, h spec.Hook, conv ...string) invocation {
	inv.phase, inv.hook = ph, h
	if len(conv) > 0 {
		inv.conversation = conv[0]
	}
	return inv
}
