// Package capability is where the runtime's optional parts register themselves: the trace
// receiver (rooktest/traces), MCP probes (rooktest/mcp), the HTML page (rooktest/page) and
// the model judge's HTTP client (rooktest/judge).
// A test binary links one only when its package imports it, as rookgen's generated code does
// for a suite that uses it, so that a suite that never uses traces or MCP does not build
// their SDKs. Each is set once, from the providing package's init; nil when the binary
// does not link it.
package capability

import (
	"context"
	"time"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// Receiver is a run's trace receiver: what the lifecycle asks of one, and Close when the
// run has ended.
type Receiver interface {
	lifecycle.Tracer
	// Requests is how many export requests came at all, Taken how many spans an attempt
	// took, Stray how many named no attempt's trace.
	Requests() int
	Taken() int
	Stray() int
	// Quiet waits until no export request has come for quiet (or most has passed).
	Quiet(quiet, most time.Duration) bool
	Close() error
}

var (
	// Traces starts a trace receiver at addr, a loopback host and port ("" picks a free
	// port on 127.0.0.1).
	Traces func(addr string) (Receiver, error)
	// Probe is what asks the MCP servers profile p approves, with the environment env
	// (the hooks' own, from which each server inherits what it is allowed).
	Probe func(p *spec.Profile, env []string) lifecycle.Prober
	// Page writes report.html into the finished run's folder dir.
	Page func(dir string) error
	// TraceContext puts the trace a hook call's environment names (TRACEPARENT, TRACESTATE)
	// into ctx, for a Go agent's method (rooktest/traces).
	TraceContext func(ctx context.Context, env []string) context.Context
	// Judge is the model judge's client (rooktest/judge): how a judge reaches its server.
	Judge func() modeljudge.Transport
	// Replay reads the traces a profile of recorded traces names (hooks: {traces: DIR}) and
	// is the agent that replays them into the run's receiver (rooktest/traces).
	Replay func(p *spec.Profile) (hook.Agent, error)
)

// Import is the import path of the package that provides a capability, for the message
// that says how to link it.
const Import = "github.com/rookgo/rookgo/rooktest/"
