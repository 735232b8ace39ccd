// Package traces links the run's OpenTelemetry trace receiver into a test binary: a suite
// whose profile sets traces: otlp (or that is run with -rook.traces) needs it. rookgen
// imports it in the generated code of such a suite; a hand-written file of the test package
// may import it too:
//
//	import _ "github.com/rookgo/rookgo/rooktest/traces"
package traces

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/propagation"

	"github.com/rookgo/rookgo/internal/otlp"
	"github.com/rookgo/rookgo/rooktest/internal/capability"
)

func init() {
	capability.TraceContext = traceContext
	capability.Replay = otlp.NewReplay
	capability.Traces = func(addr string) (capability.Receiver, error) {
		start := otlp.Start
		if addr != "" {
			start = func() (*otlp.Receiver, error) { return otlp.StartAt(addr) }
		}
		r, err := start()
		if err != nil {
			return nil, err // a nil *Receiver in the interface would not be nil
		}
		return r, nil
	}
}

// traceContext is ctx in the trace a hook call's environment names (TRACEPARENT and
// TRACESTATE), for a Go agent in the test's process: the spans its OpenTelemetry SDK starts
// from the context its method is given are the call's children, and reach the receiver
// with the call's token in their trace state.
func traceContext(ctx context.Context, env []string) context.Context {
	carrier := propagation.MapCarrier{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && (k == "TRACEPARENT" || k == "TRACESTATE") {
			carrier[strings.ToLower(k)] = v
		}
	}
	return propagation.TraceContext{}.Extract(ctx, carrier)
}
