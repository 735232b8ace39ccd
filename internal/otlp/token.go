package otlp

import (
	"strings"

	"github.com/rookgo/rookgo/internal/record"
)

// Each hook call is given a token of its own with its TRACEPARENT: in
// OTEL_EXPORTER_OTLP_HEADERS, which the OpenTelemetry SDKs send with every export request
// (record.TraceTokenHeader), and in TRACESTATE (rook=<token>), which W3C propagation carries with the
// trace to the services the agent calls, whose spans then carry it. A span is taken into an
// attempt only with one of that attempt's tokens: a process that learnt another attempt's
// TRACEPARENT (from a log, a header passed on, another hook's environment) cannot put spans
// into its trace. A span that names an attempt's trace with no token is counted there
// (Unsigned) and makes the trace incomplete, since it may be the agent's own sent without
// one: it can cost a verdict its certainty, never decide one. One that names it with
// another attempt's token is cross-talk (CrossTalk there, Foreign for the other): kept by
// neither, and a loss to the trace it named, since it too may be the agent's own, sent
// with a token kept from an earlier call; the attempt whose token it used loses nothing. A process running as the same user as the hooks can
// read a hook's environment (/proc/<pid>/environ), its token included, and send what that
// hook could: tokens keep attempts apart, not a hostile process of the same user out.

// signer is the attempt whose token signs a span: the request's header, else the span's
// tracestate; nil for none. propagated says it was the tracestate's: the span was sent by
// a process that does not have the hook's environment (a service the agent called, which
// the trace context reached over the wire). The caller holds r.mu.
func (r *Receiver) signer(header, tracestate string) (s *Sink, propagated bool) {
	if s := r.tokens[strings.TrimSpace(header)]; s != nil {
		return s, false
	}
	for _, member := range strings.Split(tracestate, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(member), "="); ok && k == record.TraceStateKey {
			s := r.tokens[v]
			return s, s != nil
		}
	}
	return nil, false
}

// signed reports whether a span of target's trace, signed by signer, is taken; what is not
// is counted: unsigned (no token) or cross-talk (another attempt's) for the trace it named,
// foreign for the attempt whose token it used.
func (r *Receiver) signed(target, signer *Sink) bool {
	if target != nil && target == signer {
		return true
	}
	if target != nil {
		target.mu.Lock()
		if signer == nil {
			target.unsigned++
		} else {
			target.crossTalk++
		}
		target.mu.Unlock()
	}
	if signer != nil {
		signer.mu.Lock()
		signer.foreign++
		signer.mu.Unlock()
	}
	return false
}
