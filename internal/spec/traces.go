package spec

import (
	"time"

	"gopkg.in/yaml.v3"
)

// parseTraces reads the keys of the run's trace receiver: traces (otlp, off, or
// {otlp: address, settle_ms: n}) and traces_quiet_ms.
func (p *Profile) parseTraces(e *errs, f field) {
	switch f.key {
	case "traces":
		if f.v.Kind == yaml.MappingNode {
			p.Traces = true
			for _, g := range fields(e, f.v, "traces", []string{"otlp", "settle_ms"}, true) {
				if g.key == "settle_ms" {
					p.TracesSettle = millis(e, g, "traces: {settle_ms: ...}")
					continue
				}
				if addr := str(e, g); LoopbackAddr(addr) {
					p.TracesAddr = addr
				} else {
					e.at(g.v, "traces: {otlp: ...} is the receiver's address, a loopback host and a port (127.0.0.1:4318), got %q", addr)
				}
			}
			return
		}
		if v := str(e, f); v != "otlp" && v != "off" {
			e.at(f.v, "traces must be otlp (receive the agent's OpenTelemetry spans), {otlp: 127.0.0.1:4318} (at that address) or off, got %q", v)
		} else {
			p.Traces = v == "otlp"
		}
	case "traces_quiet_ms":
		p.TracesQuiet = millis(e, f, "traces_quiet_ms")
	}
}

// millis is a field's count of milliseconds, not negative; 0 when it is not one.
func millis(e *errs, f field, what string) time.Duration {
	n, ok := integer(e, f)
	if ok && n < 0 {
		e.at(f.v, "%s must not be negative, got %d", what, n)
		return 0
	}
	return time.Duration(n) * time.Millisecond
}

// ServiceSchedule is how long an attempt's trace waits by default for a service that
// exports to the receiver's fixed address: the OpenTelemetry SDKs' default batch schedule
// (OTEL_BSP_SCHEDULE_DELAY, 5 s), and a second for its export to arrive.
const ServiceSchedule = 6 * time.Second

// SettleForServices is how long an attempt's trace stays open, after its last span, for
// a service started on its own that exports to the fixed address (fixed: the profile's,
// or a flag's) on its own schedule: what the profile says (traces: {settle_ms: ...}),
// else ServiceSchedule. Without a fixed address only the hooks and what they start know
// the receiver, and it is 0: their spans have settled when their tree is whole.
func (p *Profile) SettleForServices(fixed bool) time.Duration {
	if !fixed {
		return 0
	}
	if p.TracesSettle > 0 {
		return p.TracesSettle
	}
	return ServiceSchedule
}

// SettleAtEnd is how long a run waits at its end for spans still to come, by the same
// rule: with a fixed address, a service's schedule (SettleForServices); without one, what
// the profile says, else the attempt's quiet window, since the hooks are given a 100 ms
// schedule.
func (p *Profile) SettleAtEnd(fixed bool) time.Duration {
	switch {
	case fixed:
		return p.SettleForServices(fixed)
	case p.TracesSettle > 0:
		return p.TracesSettle
	case p.TracesQuiet > 0:
		return p.TracesQuiet
	}
	return 500 * time.Millisecond
}
