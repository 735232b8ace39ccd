package rooktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

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

// interruptible is parent, cancelled with an interrupted cause on Ctrl-C or SIGTERM. A
// second one ends the close hooks that the first let run (see lifecycle.WithHardStop); a
// third is the signal's default, which ends the process.
func interruptible(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	hard, hardCancel := context.WithCancelCause(context.WithoutCancel(parent))
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer signal.Stop(sigs)
		select {
		case s := <-sigs:
			cancel(interrupted{s.String() + " signal received"})
		case <-ctx.Done():
			return
		}
		select {
		case s := <-sigs:
			hardCancel(interrupted{"a second " + s.String() + " signal cut the close hooks short"})
		case <-hard.Done():
		}
	}()
	return lifecycle.WithHardStop(ctx, hard), func() {
		cancel(context.Canceled)
		hardCancel(context.Canceled)
	}
}

// stoppedEarly says why the run's context ended before its test did, or "".
func stoppedEarly(ctx context.Context) string {
	var i interrupted
	if !errors.As(context.Cause(ctx), &i) {
		return ""
	}
	why := i.why
	var second interrupted
	if hard := lifecycle.HardStop(ctx); hard != nil && errors.As(context.Cause(hard), &second) {
		why += "; " + second.why
	}
	return why
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
