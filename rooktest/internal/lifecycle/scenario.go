package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/judge"
	"github.com/rookgo/rookgo/internal/spec"
)

// Outcome is what became of one scenario.
type Outcome struct {
	Scenario *spec.Scenario
	// Dir is the scenario's record folder.
	Dir string
	// NotRun says why the scenario never started (prepare failed, say); nothing else is set.
	NotRun string
	Status judge.Status
	Reason string
	Rows   []judge.Row
	Hits   []judge.ForbiddenHit
	// Failures are hook failures that fail the scenario (open, execute, collect).
	Failures []*PhaseError
	// Problems are hook failures that are reported without failing it (close).
	Problems []*PhaseError
	// RecordErr is set when a record could not be written.
	RecordErr error
	LatencyMs int64
	Turns     int
	Usage     *hook.Usage
}

// NotRun is the outcome of a scenario that never started.
func NotRun(sc *spec.Scenario, why string) *Outcome {
	return &Outcome{Scenario: sc, NotRun: why}
}

type scenarioRun struct {
	r       *Run
	sc      *spec.Scenario
	dir     string
	log     Logger
	hooks   HooksFile
	lastEnd time.Time
	errs    []error
}

// Scenario runs one scenario through open, execute per turn, close, collect and judge,
// writing each record as it is made. ctx bounds the whole scenario.
func (r *Run) Scenario(ctx context.Context, sc *spec.Scenario, log Logger) *Outcome {
	s := &scenarioRun{r: r, sc: sc, dir: filepath.Join(r.Dir, "scenarios", sc.ID), log: log,
		hooks: HooksFile{Version: 1}}
	r.mu.Lock()
	s.lastEnd = r.prepareEnd
	r.mu.Unlock()
	o := &Outcome{Scenario: sc, Dir: s.dir}
	stateDir := filepath.Join(s.dir, "hook-state")
	for _, d := range []string{stateDir, filepath.Join(s.dir, "artifacts")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			o.RecordErr = fmt.Errorf("create scenario folder: %w", err)
			o.Status = judge.UnableToVerify
			return o
		}
	}
	red := r.cfg.Redactor
	s.record(red.Bytes(filepath.Join(s.dir, "snapshot.yaml"), sc.Source))
	p := r.cfg.Profile
	s.record(red.JSON(filepath.Join(s.dir, "request.json"), Request{ScenarioID: sc.ID, Attempt: 1,
		Goal: sc.Goal, SetupMessages: nonNilStrings(sc.SetupMessages), Profile: p.ID, Invoked: p.Hooks[spec.Execute].Invoked()}))

	budget := ctx
	if sc.Timeout > 0 {
		var cancel context.CancelFunc
		budget, cancel = context.WithTimeoutCause(ctx, sc.Timeout,
			fmt.Errorf("scenario %s went over its timeout_seconds budget of %s", sc.ID, sc.Timeout))
		defer cancel()
	}
	inv := invocation{scenario: sc.ID, session: r.ID + "/" + sc.ID + "/1", stateDir: stateDir}
	ev := &judge.Evidence{}
	var transcript []Message
	var raw string
	var conv string

	openRan, openOK := false, true
	if h, ok := p.Hooks[spec.Open]; ok {
		openRan = true
		rec, out, perr := s.phase(budget, withPhase(inv, spec.Open, h))
		s.hooks.Phases.Open = rec
		if perr != nil {
			openOK = false
			o.Failures = append(o.Failures, perr)
		} else if out.Conversation != "" {
			conv = out.Conversation
		}
		s.saveHooks(conv)
	}

	executeRan := false
	if openOK {
		execHook := p.Hooks[spec.Execute]
		var turns []*PhaseRecord
		for turn := 1; turn <= sc.Turns(); turn++ {
			in := withPhase(inv, spec.Execute, execHook)
			in.turn, in.conversation, in.stdin = turn, conv, sc.TurnInput(turn)
			rec, out, perr := s.phase(budget, in)
			executeRan = true
			if rec.Data != nil {
				// The reply lives in response.json; hooks.json keeps the rest, as Rook does.
				data := make(map[string]any, len(rec.Data))
				for k, v := range rec.Data {
					if k != "output" && k != "agent_reply" {
						data[k] = v
					}
				}
				rec.Data = data
			}
			turns = append(turns, rec)
			last := *rec
			last.Turns = turns
			s.hooks.Phases.Execute = &last
			if perr != nil {
				o.Failures = append(o.Failures, perr)
				s.saveHooks(conv)
				break
			}
			raw = rawStdout(out)
			if out.Conversation != "" {
				conv = out.Conversation
			}
			transcript = append(transcript, Message{"user", in.stdin}, Message{"agent", out.Reply})
			ev.Turns = append(ev.Turns, judge.Turn{Input: in.stdin, Output: out.Reply, LatencyMs: rec.DurationMs})
			ev.AgentRan = true
			addEvidence(ev, out)
			s.saveHooks(conv)
			if turn == 1 && sc.Turns() > 1 && conv == "" {
				o.Failures = append(o.Failures, &PhaseError{Phase: spec.Execute, Turn: 1, Scenario: sc.ID, Script: execHook.Invoked(),
					Err: errors.New("returned no conversation handle (from open or execute), so later turns cannot continue the same conversation; the scenario stops")})
				break
			}
		}
		r.markPhase(spec.Execute)
	}
	if openRan {
		r.markPhase(spec.Open)
	}

	// close runs whenever open or execute ran, whatever they did; it has its own timeout
	// and is not bound by the scenario budget.
	if h, ok := p.Hooks[spec.Close]; ok && (openRan || executeRan) {
		rec, _, perr := s.phase(ctx, withPhase(inv, spec.Close, h, conv))
		s.hooks.Phases.Close = rec
		if perr != nil {
			o.Problems = append(o.Problems, perr)
		}
		s.saveHooks(conv)
		r.markPhase(spec.Close)
	}

	if h, ok := p.Hooks[spec.Collect]; ok && executeRan {
		rec, out, perr := s.phase(ctx, withPhase(inv, spec.Collect, h, conv))
		s.hooks.Phases.Collect = rec
		if perr != nil {
			o.Failures = append(o.Failures, perr)
		} else if out != nil {
			ev.Collect = out.Data
			addEvidence(ev, out)
		}
		s.saveHooks(conv)
		r.markPhase(spec.Collect)
	}

	var artifacts []string
	for _, rec := range []*PhaseRecord{s.hooks.Phases.Execute, s.hooks.Phases.Collect} {
		if rec != nil {
			artifacts = append(artifacts, s.copyEvidence(rec.Data, len(artifacts)+1)...)
		}
	}

	// judge
	o.Rows = judge.Evaluate(sc.Criteria, ev)
	o.Hits = judge.Forbidden(sc.Forbidden, ev)
	o.Status, o.Reason = judge.ScenarioStatus(o.Rows, o.Hits, len(sc.Forbidden) > 0 && ev.AgentRan)
	if len(o.Failures) > 0 {
		o.Status, o.Reason = judge.Fail, ""
	}
	r.markPhase(spec.Judge)
	for _, t := range ev.Turns {
		o.LatencyMs += t.LatencyMs
	}
	o.Turns, o.Usage = len(ev.Turns), ev.Usage

	status := "completed"
	if !ev.AgentRan || len(o.Failures) > 0 {
		status = "failed"
	}
	var calls *[]hook.Call
	if ev.CallsObserved {
		c := nonNilCalls(ev.Calls)
		calls = &c
	}
	s.record(red.JSON(filepath.Join(s.dir, "response.json"), Response{ScenarioID: sc.ID, Attempt: 1, Status: status,
		Output: ev.Output(), RawResponse: raw, Transcript: nonNilMessages(transcript), Calls: calls,
		Artifacts: nonNilStrings(artifacts), LatencyMs: o.LatencyMs, Turns: o.Turns, Usage: ev.Usage}))
	s.record(red.YAML(filepath.Join(s.dir, "verdict.yaml"), verdict(r.ID, o)))
	o.RecordErr = errors.Join(s.errs...)
	return o
}

func withPhase(inv invocation, ph spec.Phase, h spec.Hook, conv ...string) invocation {
	inv.phase, inv.hook = ph, h
	if len(conv) > 0 {
		inv.conversation = conv[0]
	}
	return inv
}

// phase waits out the hook's delay, then runs it.
func (s *scenarioRun) phase(ctx context.Context, inv invocation) (*PhaseRecord, *hook.Output, *PhaseError) {
	if d := inv.hook.Delay; d > 0 {
		if left := d - time.Since(s.lastEnd); !s.lastEnd.IsZero() && left > 0 && s.log != nil {
			s.log(fmt.Sprintf("%s: waiting %s (delay_seconds: at least %s after the preceding phase)", inv.phase, left.Round(time.Millisecond), d))
		}
		if err := wait(ctx, d, s.lastEnd); err != nil {
			rec := &PhaseRecord{Script: inv.hook.Invoked(), Turn: inv.turn, Error: err.Error()}
			return rec, nil, &PhaseError{Phase: inv.phase, Turn: inv.turn, Scenario: inv.scenario, Script: inv.hook.Invoked(), Err: err}
		}
	}
	rec, out, perr := s.r.invoke(ctx, inv, s.log)
	s.lastEnd = time.Now()
	return rec, out, perr
}

func (s *scenarioRun) saveHooks(conv string) {
	s.hooks.Conversation = conv
	s.record(s.r.cfg.Redactor.JSON(filepath.Join(s.dir, "hooks.json"), s.hooks))
}

func (s *scenarioRun) record(err error) {
	if err != nil {
		s.errs = append(s.errs, err)
	}
}

// copyEvidence copies a hook's evidence_file into artifacts/ as NN-<name>.
func (s *scenarioRun) copyEvidence(data map[string]any, n int) []string {
	path, _ := data["evidence_file"].(string)
	if path == "" {
		return nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.r.cfg.Workspace, path)
	}
	src, err := os.Open(path)
	if err != nil {
		s.log(fmt.Sprintf("artifacts: evidence_file %s cannot be read: %v", path, err))
		return nil
	}
	defer src.Close()
	b, err := io.ReadAll(io.LimitReader(src, 32<<20))
	if err != nil {
		return nil
	}
	dst := filepath.Join(s.dir, "artifacts", fmt.Sprintf("%02d-%s", n, filepath.Base(path)))
	s.record(s.r.cfg.Redactor.Bytes(dst, b))
	return []string{s.r.rel(dst)}
}

func addEvidence(ev *judge.Evidence, out *hook.Output) {
	if out.CallsObserved {
		ev.CallsObserved = true
		ev.Calls = append(ev.Calls, out.Calls...)
	}
	if out.Usage != nil {
		if ev.Usage == nil {
			ev.Usage = &hook.Usage{}
		}
		ev.Usage.Input += out.Usage.Input
		ev.Usage.Output += out.Usage.Output
	}
}

func rawStdout(out *hook.Output) string {
	if out == nil || out.Data == nil {
		return ""
	}
	b, _ := json.Marshal(out.Data)
	return string(b)
}

func verdict(runID string, o *Outcome) Verdict {
	v := Verdict{ScenarioID: o.Scenario.ID, RunID: runID, Status: o.Status, UnverifiableReason: o.Reason,
		Criteria: o.Rows, ForbiddenHits: o.Hits, LatencyMs: o.LatencyMs, Turns: o.Turns, Usage: o.Usage}
	if v.Criteria == nil {
		v.Criteria = []judge.Row{}
	}
	if v.ForbiddenHits == nil {
		v.ForbiddenHits = []judge.ForbiddenHit{}
	}
	var msgs []string
	for _, f := range o.Failures {
		msgs = append(msgs, f.Error())
	}
	v.Failure = strings.Join(msgs, "; ")
	for _, r := range o.Rows {
		switch r.Status {
		case judge.Pass:
			v.PassCount++
		case judge.Fail:
			v.FailCount++
		default:
			v.UnableToVerifyCount++
		}
	}
	if n := len(o.Rows); n > 0 {
		v.CompliancePercentage = v.PassCount * 100 / n
	}
	return v
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMessages(m []Message) []Message {
	if m == nil {
		return []Message{}
	}
	return m
}

func nonNilCalls(c []hook.Call) []hook.Call {
	if c == nil {
		return []hook.Call{}
	}
	return c
}
