package lifecycle

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// PhaseError is a hook that failed, attributed to its phase, turn, scenario and script.
type PhaseError struct {
	Phase    spec.Phase
	Turn     int
	Scenario string
	Script   string
	ExitCode int
	TimedOut bool
	// Stopped is set when the run was interrupted (Ctrl-C, SIGTERM, the test's deadline)
	// while the hook ran.
	Stopped bool
	// Stderr is the tail of the hook's stderr, its diagnosis.
	Stderr string
	Err    error
}

func (e *PhaseError) Error() string {
	var where []string
	if e.Turn > 0 {
		where = append(where, fmt.Sprintf("turn %d", e.Turn))
	}
	if e.Scenario != "" {
		where = append(where, "scenario "+e.Scenario)
	}
	where = append(where, e.Script)
	return fmt.Sprintf("%s hook failed (%s): %v", e.Phase, strings.Join(where, ", "), e.Err)
}

func (e *PhaseError) Unwrap() error { return e.Err }

// Transport reports whether the hook itself failed to deliver: it exited non-zero or ran
// out of time (as against printing something unusable, or being stopped with the run).
func (e *PhaseError) Transport() bool { return !e.Stopped && (e.TimedOut || e.ExitCode != 0) }

// invocation is one hook call within a scenario (or the run, for prepare).
type invocation struct {
	phase    spec.Phase
	hook     spec.Hook
	scenario string
	session  string
	stateDir string
	turn     int
	// try is the turn's try, 1-based: a turn whose agent asked to wait runs again.
	try          int
	conversation string
	stdin        string
	canary       string
	// trace is the OpenTelemetry environment of the call when traces are on: where to
	// export, and its TRACEPARENT.
	trace []string
}

// call is the hook call the invocation is, as the records, the receiver and observe name it.
func (inv invocation) call() record.HookCall {
	c := record.HookCall{Phase: string(inv.phase)}
	if inv.phase == spec.Execute {
		c.Turn, c.Try = inv.turn, max(1, inv.try)
	}
	return c
}

// env is the hook's environment under the hook contract (hook.Environ).
func (r *Run) env(inv invocation) []string {
	return append(hook.Environ(r.cfg.Env, r.cfg.Profile.HookEnv, hook.Scope{Phase: string(inv.phase),
		Workspace: r.cfg.Workspace, Project: r.cfg.Project, Agent: r.cfg.Agent, RunID: r.ID,
		RunStateDir: r.RunStateDir, StateDir: inv.stateDir, Scenario: inv.scenario, Session: inv.session,
		Turn: inv.turn, Conversation: inv.conversation, Canary: inv.canary}), inv.trace...)
}

// invoke runs one hook and returns its record, its parsed output and, when it failed, the
// attributed error. The record is filled in however the hook failed.
func (r *Run) invoke(ctx context.Context, inv invocation, log Logger) (*record.PhaseRecord, *hook.Output, *PhaseError) {
	label := inv.call().String()
	timeout := r.cfg.Profile.TimeoutFor(inv.phase)
	// What a hook prints is redacted once, as it comes in: its stdout after it is parsed
	// (the decoded strings and keys, so that a secret never changes what is parsed; the
	// raw text kept beside them with every JSON escaping of a secret) and its stderr
	// before it is logged or kept. Records, the judge, the test log and JUnit then all see
	// the same text.
	red := r.cfg.Redactor
	var res *hook.Result
	var err error
	if inv.hook.Go != "" {
		res, err = r.callGo(ctx, inv, timeout, log, label)
	} else {
		res, err = hook.Run(ctx, hook.Spec{
			Argv:    inv.hook.Argv(inv.phase),
			Dir:     r.cfg.Profile.AgentDir,
			Env:     r.env(inv),
			Stdin:   inv.stdin,
			Timeout: timeout,
			OnStderr: func(line string) {
				if log != nil {
					log(label + ": " + line)
				}
			},
			Filter: red.Stream(),
		})
	}
	rec := &record.PhaseRecord{Ran: true, Script: inv.hook.Invoked(), Turn: inv.turn}
	var out *hook.Output
	if res != nil {
		rec.At = res.Started.UTC()
		rec.EndedAt = res.Ended.UTC()
		rec.DurationMs = res.Duration().Milliseconds()
		rec.ExitCode = res.ExitCode
		rec.TimedOut = res.TimedOut
		rec.Stopped = res.Stopped
		res.Stderr = red.Text(res.Stderr)
		rec.Stderr = res.Stderr
		for _, p := range res.Left {
			rec.LeftRunning = append(rec.LeftRunning, red.Text(p)) // a command line may hold a secret
		}
		if len(rec.LeftRunning) > 0 && log != nil {
			log(label + ": exited and left running (ended since): " + strings.Join(rec.LeftRunning, "; "))
		}
	}
	if err == nil {
		out, err = r.output(inv, res, rec, log, label)
	}
	if err != nil {
		if msg := red.Text(err.Error()); msg != err.Error() {
			err = errors.New(msg) // it quoted what the hook printed
		}
		rec.Error = err.Error()
		pe := &PhaseError{Phase: inv.phase, Turn: inv.turn, Scenario: inv.scenario, Script: inv.hook.Invoked(), Err: err}
		if res != nil {
			pe.ExitCode, pe.TimedOut, pe.Stopped, pe.Stderr = res.ExitCode, res.TimedOut, res.Stopped, res.Stderr
		}
		if log != nil {
			log(fmt.Sprintf("%s: failed after %d ms: %v", label, rec.DurationMs, err))
		}
		return rec, out, pe
	}
	rec.OK = true
	if log != nil {
		log(fmt.Sprintf("%s: ok in %d ms", label, rec.DurationMs))
	}
	return rec, out, nil
}

// output parses what a hook that exited 0 printed on stdout into rec: parsed first, then
// redacted (its decoded values, and the raw text kept for execute), its near misses of
// the contract noted. The error is a bad stdout's.
func (r *Run) output(inv invocation, res *hook.Result, rec *record.PhaseRecord, log Logger, label string) (*hook.Output, error) {
	red := r.cfg.Redactor
	m, perr := hook.Decode(res.Stdout, inv.phase == spec.Execute)
	res.Stdout = []byte(red.Text(string(res.Stdout)))
	out := &hook.Output{}
	if m != nil {
		red.Value(m) // before the fields are read: they are read from the redacted data
		out, perr = hook.FromData(m, inv.phase == spec.Execute)
		rec.Data = out.Data
		r.relEvidenceFile(rec.Data)
	}
	rec.Notes = out.Notes
	for _, n := range out.Notes {
		if log != nil {
			log(label + ": note: " + n)
		}
	}
	r.saw(out)
	if inv.phase == spec.Execute {
		rec.Stdout = string(res.Stdout)
	}
	if perr != nil {
		return out, fmt.Errorf("bad stdout: %w", errors.New(red.Text(perr.Error()))) // it quotes the stdout
	}
	return out, nil
}

// relEvidenceFile records an evidence_file inside the workspace relative to it, as Rook's
// records do; copyEvidence resolves it again.
func (r *Run) relEvidenceFile(data map[string]any) {
	if p, ok := data["evidence_file"].(string); ok && filepath.IsAbs(p) {
		data["evidence_file"] = r.rel(p)
	}
}

// onThisClock is a time read from a record as an instant of this process's monotonic
// clock: as long ago as the record says, and never in the future (a clock that was ahead,
// or a time a hook wrote, must not make a delay wait longer than itself). Zero stays zero.
func onThisClock(recorded time.Time) time.Time {
	if recorded.IsZero() {
		return recorded
	}
	return time.Now().Add(-max(0, time.Since(recorded)))
}

// wait sleeps until delay has passed since since; it returns early when ctx ends. It never
// waits longer than delay.
func wait(ctx context.Context, delay time.Duration, since time.Time) error {
	if delay <= 0 || since.IsZero() {
		return nil
	}
	left := min(delay, delay-time.Since(since))
	if left <= 0 {
		return nil
	}
	t := time.NewTimer(left)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// callGo runs the phase's method of the run's Go agent, given what a hook of the call
// would be given; its diagnosis (an error, a panic's stack) is logged redacted, as a
// hook's stderr is.
func (r *Run) callGo(ctx context.Context, inv invocation, timeout time.Duration, log Logger, label string) (*hook.Result, error) {
	if r.cfg.GoAgent == nil {
		return &hook.Result{Started: time.Now(), Ended: time.Now(), ExitCode: -1}, fmt.Errorf("no Go agent %s is registered in this test binary", inv.hook.Invoked())
	}
	c := hook.Call{Phase: string(inv.phase), Workspace: r.cfg.Workspace, Project: r.cfg.Project, Agent: r.cfg.Agent,
		RunID: r.ID, RunStateDir: r.RunStateDir, StateDir: inv.stateDir, Scenario: inv.scenario, Session: inv.session,
		Turn: inv.turn, Conversation: inv.conversation, Canary: inv.canary, Message: inv.stdin, Env: r.env(inv)}
	if len(inv.trace) > 0 && r.cfg.TraceContext != nil {
		ctx = r.cfg.TraceContext(ctx, inv.trace)
	}
	res, err := hook.RunAgent(ctx, r.cfg.GoAgent, inv.hook.Go, c, timeout)
	if res != nil && res.Stderr != "" && log != nil {
		for _, line := range strings.Split(strings.TrimRight(r.cfg.Redactor.Text(res.Stderr), "\n"), "\n") {
			log(label + ": " + line)
		}
	}
	return res, err
}

type hardStopKey struct{}

// WithHardStop gives ctx a second context, hard, that ends close hooks too: close runs on
// after ctx ends (an interrupted run still releases what open took) until hard ends (a
// second interrupt), when it is stopped at once, its records kept.
func WithHardStop(ctx, hard context.Context) context.Context {
	return context.WithValue(ctx, hardStopKey{}, hard)
}

// closeContext is the context close hooks run under: ctx's values, not its end, and the
// end of the hard stop WithHardStop gave it, if any.
func closeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	closing, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	hard := HardStop(ctx)
	if hard == nil {
		return closing, func() { cancel(context.Canceled) }
	}
	stop := context.AfterFunc(hard, func() { cancel(context.Cause(hard)) })
	return closing, func() {
		stop()
		cancel(context.Canceled)
	}
}

// HardStop is the hard stop WithHardStop gave ctx, or nil.
func HardStop(ctx context.Context) context.Context {
	hard, _ := ctx.Value(hardStopKey{}).(context.Context)
	return hard
}

// maxWaits is how many times one turn may ask to be run again after a wait.
const maxWaits = 3

// waitIfAsked holds every scenario's next turn while the agent's API asks (retry_after_ms),
// and reports whether the turn gave no reply and is to be run again: at most maxWaits
// times, after which it is a turn without a reply.
func (a *attemptRun) waitIfAsked(rec *record.PhaseRecord, out *hook.Output, waits *int) bool {
	if out == nil || out.RetryAfterMs == nil {
		return false
	}
	d := time.Duration(*out.RetryAfterMs) * time.Millisecond
	if most := cmp.Or(a.r.cfg.MaxWait, time.Minute); d > most {
		// One wait of an hour would hold every scenario of the run for as long.
		rec.OK = false
		rec.Error = fmt.Sprintf("the agent's API asked to wait %s (retry_after_ms %d), longer than -rook.max-wait=%s, so the turn fails rather than hold every scenario; give the API room (-rook.rate), a later run, or a longer -rook.max-wait",
			d, *out.RetryAfterMs, most)
		return false
	}
	a.r.cfg.Turns.Pause(d)
	if a.log != nil {
		a.log(fmt.Sprintf("execute (turn %d): the agent's API asked to wait %s (retry_after_ms); no turn of any scenario starts before then", rec.Turn, d))
	}
	if out.HasReply || out.ReplyUnobserved != "" {
		return false
	}
	if *waits < maxWaits {
		*waits++
		return true
	}
	rec.OK = false
	rec.Error = fmt.Sprintf("asked to wait (retry_after_ms) %d times and never replied; give the agent's API room (-rook.rate) or a later run", maxWaits+1)
	return false
}
