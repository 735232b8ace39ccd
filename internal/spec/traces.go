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

// SettleAtEnd is how long a run waits at its end for spans still to come: what the profile
// says (traces: {settle_ms: ...}), else, with a fixed address (fixed: the profile's, or a
// flag's), 5 s, since an agent service started on its own may export there on the
// OpenTelemetry SDKs' default batch schedule (OTEL_BSP_SCHEDULE_DELAY); without one, only
// the hooks and what they start know the address, and they are given a 100 ms schedule,
// so the attempt's quiet window will do.
func (p *Profile) SettleAtEnd(fixed bool) time.Duration {
	switch {
	case p.TracesSettle > 0:
		return p.TracesSettle
	case fixed:
		return 5 * time.Second
	case p.TracesQuiet > 0:
		return p.TracesQuiet
	}
	return 500 * time.Millisecond
}
