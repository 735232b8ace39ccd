package lifecycle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/judge"
	"github.com/rookgo/rookgo/internal/spec"
)

// Outcome is what became of one scenario in this process.
type Outcome struct {
	Scenario *spec.Scenario
	// Dir is the scenario's record folder.
	Dir string
	// NotRun says why the scenario did not start (prepare failed, the run halted); nothing
	// else is set.
	NotRun string
	// Err is set when the runner itself failed the scenario: its record folder could not be
	// made, or running it panicked (the panic and its stack are in the error). It fails.
	Err error
	// CarriedFrom names the earlier run whose verdict was carried forward.
	CarriedFrom string
	// Attempts are the scenario's attempts, one unless it repeats.
	Attempts []*Attempt
	// Status is pass^k over the judged attempts; Judged is false when judge did not run.
	Status judge.Status
	Reason string
	Judged bool
	Flaky  bool

	LatencyMs int64
	Turns     int
	Usage     *hook.Usage
}

// NotRun is the outcome of a scenario that never started.
func NotRun(sc *spec.Scenario, why string) *Outcome {
	return &Outcome{Scenario: sc, NotRun: why}
}

// Scenario runs the selected phases of one scenario, each attempt in turn, skipping what
// its records show already completed, and judges it when judge is selected.
func (r *Run) Scenario(ctx context.Context, sc *spec.Scenario, log Logger) (o *Outcome) {
	dir := filepath.Join(r.Dir, "scenarios", sc.ID)
	o = &Outcome{Scenario: sc, Dir: dir}
	defer func() {
		if p := recover(); p != nil {
			// A bug must fail its own scenario, never the whole test binary: the rest of
			// the run goes on, and report.yaml is still written.
			o.Err = fmt.Errorf("rooktest panicked while running scenario %s (a bug; the records so far are kept): %v\n%s", sc.ID, p, debug.Stack())
			o.Judged = false
		}
	}()
	if why := r.haltedWhy(); why != "" {
		o.NotRun = "the run halted: " + why
		return o
	}
	if ctx.Err() != nil {
		o.NotRun = fmt.Sprintf("the run was interrupted (%v); continue it with -rook.run=%s", context.Cause(ctx), r.ID)
		return o
	}
	if why := r.changedSince(sc, dir); why != "" {
		o.NotRun = why
		return o
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		o.Err = fmt.Errorf("create the record folder of scenario %s: %w", sc.ID, err)
		return o
	}
	for n := 1; n <= sc.Repeat; n++ {
		if n > 1 {
			if why := r.haltedWhy(); why != "" {
				o.Attempts = append(o.Attempts, &Attempt{ScenarioID: sc.ID, N: n, NotRun: "the run halted: " + why})
				continue
			}
		}
		o.Attempts = append(o.Attempts, r.attempt(ctx, sc, n, log))
	}
	r.aggregate(o)
	return o
}

// changedSince refuses to continue a scenario whose file changed since the run recorded it.
func (r *Run) changedSince(sc *spec.Scenario, dir string) string {
	old, err := os.ReadFile(filepath.Join(dir, "snapshot.yaml"))
	if err != nil {
		return ""
	}
	if string(old) != r.cfg.Redactor.String(string(sc.Source)) {
		return fmt.Sprintf("%s changed since run %s recorded it; start a new run, or -rook.resume=%s to carry the rest forward", sc.ID, r.ID, r.ID)
	}
	return ""
}

// attemptDir is where attempt n keeps its records: the scenario folder itself when the
// scenario runs once, attempts/<n>/ inside it when it repeats.
func attemptDir(dir string, n, repeat int) string {
	if repeat <= 1 {
		return dir
	}
	return filepath.Join(dir, "attempts", strconv.Itoa(n))
}

// aggregate decides the scenario from its attempts: it passes only if every attempt
// passes (pass^k); it is flaky when judged attempts disagree.
func (r *Run) aggregate(o *Outcome) {
	sc := o.Scenario
	judged := 0
	statuses := map[judge.Status]bool{}
	reasonRank := map[string]int{judge.AgentNeverRan: 3, judge.NotObservable: 2, judge.Undecidable: 1}
	status, reason := judge.Pass, ""
	for _, a := range o.Attempts {
		o.LatencyMs += a.LatencyMs
		o.Turns += a.Turns
		if a.Usage != nil {
			if o.Usage == nil {
				o.Usage = &hook.Usage{}
			}
			o.Usage.Input += a.Usage.Input
			o.Usage.Output += a.Usage.Output
		}
		if !a.Judged {
			continue
		}
		judged++
		statuses[a.Status] = true
		switch {
		case a.Status == judge.Fail:
			status, reason = judge.Fail, ""
		case a.Status == judge.UnableToVerify && status != judge.Fail:
			status = judge.UnableToVerify
			if reasonRank[a.Reason] > reasonRank[reason] {
				reason = a.Reason
			}
		}
	}
	o.Judged = judged == len(o.Attempts) && judged > 0
	o.Flaky = len(statuses) > 1
	if !o.Judged {
		return
	}
	o.Status, o.Reason = status, reason
	if sc.Repeat <= 1 {
		return
	}
	v := Verdict{ScenarioID: sc.ID, RunID: r.ID, Status: status, UnverifiableReason: reason,
		ForbiddenHits: []judge.ForbiddenHit{}, Flaky: o.Flaky}
	passed := 0
	for _, a := range o.Attempts {
		as := AttemptStatus{Attempt: a.N, Status: a.Status, UnverifiableReason: a.Reason,
			LatencyMs: a.LatencyMs, Turns: a.Turns, Usage: a.Usage}
		var msgs []string
		for _, f := range a.Failures {
			msgs = append(msgs, f.Error())
		}
		as.Failure = strings.Join(msgs, "; ")
		v.Attempts = append(v.Attempts, as)
		if a.Status == judge.Pass {
			passed++
		}
		v.ForbiddenHits = append(v.ForbiddenHits, a.Hits...)
	}
	v.AttemptsPassed = &passed
	// The criteria shown are those of the first attempt that did not pass, else the last.
	shown := o.Attempts[len(o.Attempts)-1]
	for _, a := range o.Attempts {
		if a.Status != judge.Pass {
			shown = a
			break
		}
	}
	// As in Rook's verdicts, latency_ms, turns and usage are one attempt's (the one whose
	// criteria are shown); the attempts list has each attempt's.
	v.Criteria = nonNil(shown.Rows)
	v.LatencyMs, v.Turns, v.Usage = shown.LatencyMs, shown.Turns, shown.Usage
	countRows(&v, shown.Rows)
	if err := r.cfg.Redactor.YAML(filepath.Join(o.Dir, "verdict.yaml"), v); err != nil {
		shown.RecordErr = err
	}
}
