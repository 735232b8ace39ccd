package lifecycle

import "context"

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
