package lifecycle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"

	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
)

// Outcome is what became of one scenario in this process.
type Outcome struct {
	Scenario *scenario.Scenario
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
	// Verdict is the scenario's verdict: its one attempt's, or with repeat pass^k over its
	// attempts; nil until every attempt is judged.
	Verdict *record.Verdict
}

// Judged reports whether the scenario has a verdict.
func (o *Outcome) Judged() bool { return o.Verdict != nil }

// NotRun is the outcome of a scenario that never started.
func NotRun(sc *scenario.Scenario, why string) *Outcome {
	return &Outcome{Scenario: sc, NotRun: why}
}

// Scenario runs the selected phases of one scenario, each attempt in turn, skipping what
// its records show already completed, and judges it when judge is selected.
func (r *Run) Scenario(ctx context.Context, sc *scenario.Scenario, log Logger) (o *Outcome) {
	dir := filepath.Join(r.Dir, "scenarios", sc.ID)
	o = &Outcome{Scenario: sc, Dir: dir}
	defer func() {
		if p := recover(); p != nil {
			// A bug must fail its own scenario, never the whole test binary: the rest of
			// the run goes on, and report.yaml is still written.
			o.Err = fmt.Errorf("rooktest panicked while running scenario %s (a bug; the records so far are kept): %v\n%s", sc.ID, p, debug.Stack())
			o.Verdict = nil
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
		o.Attempts = append(o.Attempts, r.attempt(ctx, sc, n, log, ""))
	}
	r.aggregate(o)
	return o
}

// changedSince refuses to continue a scenario whose file changed since the run recorded it.
func (r *Run) changedSince(sc *scenario.Scenario, dir string) string {
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

// aggregate decides the scenario from its attempts, once every one is judged: one
// attempt's verdict is the scenario's; with repeat, the scenario passes when min_pass of
// its attempts pass (every one when min_pass is not set: pass^k), fails when that many can
// no longer pass even were every undecided attempt a pass, and is otherwise Unable to
// Verify; it is flaky when the attempts disagree.
func (r *Run) aggregate(o *Outcome) {
	sc := o.Scenario
	if len(o.Attempts) == 0 {
		return
	}
	for _, a := range o.Attempts {
		if !a.Judged() {
			return
		}
	}
	if sc.Repeat <= 1 {
		o.Verdict = o.Attempts[0].Verdict
		return
	}
	verdicts := make([]*record.Verdict, len(o.Attempts))
	ns := make([]int, len(o.Attempts))
	for i, a := range o.Attempts {
		verdicts[i], ns[i] = a.Verdict, a.N
	}
	v, shown := decide.Repeats(sc, r.ID, ns, verdicts, r.excuse(sc.ID))
	o.Verdict = &v
	if err := r.cfg.Redactor.WriteVerdict(o.Dir, &v); err != nil {
		o.Attempts[shown].RecordErr = err
	}
}

// excuse is what would leave a scenario's failure out of the exit code: its quarantine, or
// the gate; "" for nothing.
func (r *Run) excuse(id string) string {
	for _, e := range r.cfg.Quarantined {
		if e.ScenarioID == id {
			return decide.ExcuseQuarantine
		}
	}
	if r.cfg.Gate {
		return decide.ExcuseGate
	}
	return ""
}
