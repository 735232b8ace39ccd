package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// Prepare runs the prepare hook, if the profile defines one and the records do not show it
// completed. Prepare is every scenario's precondition: a continued run whose prepare failed
// or was interrupted runs it again first, whatever phases were selected, and keeps the
// earlier attempt's record and state folder aside in prepare/abandoned/<n>/. A failure is
// returned; the run keeps its records, and its scenarios are not run.
func (r *Run) Prepare(ctx context.Context, log Logger) *PhaseError {
	h, ok := r.cfg.Profile.Hooks[spec.Prepare]
	if !ok {
		return nil
	}
	r.mu.Lock()
	prev := r.file.Prepare
	attempted := r.file.PrepareAttempts > 0 || prev != nil
	r.mu.Unlock()
	switch {
	case prev != nil && prev.OK:
		if log != nil {
			log(fmt.Sprintf("prepare: completed in run %s already; not run again", r.ID))
		}
		return nil
	case !r.cfg.Selection[spec.Prepare] && !attempted:
		return nil
	}
	if attempted {
		kept, err := r.abandonPrepare(prev)
		if err != nil {
			return &PhaseError{Phase: spec.Prepare, Script: h.Invoked(), Err: err}
		}
		if log != nil {
			log(fmt.Sprintf("prepare: did not complete in run %s; running it again first (the earlier attempt is kept in %s)", r.ID, kept))
		}
	}
	r.mu.Lock()
	r.file.Prepare = nil
	r.file.PrepareAttempts++
	r.mu.Unlock()
	// Written before the hook starts, so a run killed during prepare shows it was attempted.
	if err := r.writeRunFile(); err != nil {
		return &PhaseError{Phase: spec.Prepare, Script: h.Invoked(), Err: err}
	}
	inv := invocation{phase: spec.Prepare, hook: h, stateDir: r.PrepareStateDir}
	rec, _, perr := r.invoke(ctx, inv, log)
	r.mu.Lock()
	r.file.Prepare = rec
	r.prepareEnd = time.Now()
	r.mu.Unlock()
	r.markPhase(spec.Prepare)
	if err := r.writeRunFile(); err != nil && perr == nil {
		return &PhaseError{Phase: spec.Prepare, Script: h.Invoked(), Err: err}
	}
	return perr
}

// abandonPrepare moves prepare's state folder, and its record when there is one, to
// prepare/abandoned/<n>/, and leaves a fresh state folder.
func (r *Run) abandonPrepare(prev *record.PhaseRecord) (string, error) {
	base := filepath.Join(r.Dir, "prepare", "abandoned")
	var kept string
	for n := 1; ; n++ {
		kept = filepath.Join(base, strconv.Itoa(n))
		if _, err := os.Stat(kept); errors.Is(err, os.ErrNotExist) {
			break
		}
	}
	if err := os.MkdirAll(kept, 0o755); err != nil {
		return "", fmt.Errorf("keep the failed prepare aside: %w", err)
	}
	if prev != nil {
		if err := r.cfg.Redactor.YAML(filepath.Join(kept, "prepare.yaml"), prev); err != nil {
			return "", fmt.Errorf("keep the failed prepare aside: %w", err)
		}
	}
	if err := os.Rename(r.PrepareStateDir, filepath.Join(kept, "hook-state")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("keep the failed prepare aside: %w", err)
	}
	if err := os.MkdirAll(r.PrepareStateDir, 0o755); err != nil {
		return "", fmt.Errorf("keep the failed prepare aside: %w", err)
	}
	return r.rel(kept), nil
}

// PrepareLeft names the processes prepare left running when it exited in this process
// (ended then); nil when it left none or did not run here.
func (r *Run) PrepareLeft() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.prepareEnd.IsZero() || r.file.Prepare == nil {
		return nil
	}
	return r.file.Prepare.LeftRunning
}
