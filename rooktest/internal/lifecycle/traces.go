package lifecycle

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// tracesFile is where an attempt's trace is kept.
const tracesFile = "traces.json"

// tracesMost bounds how long an attempt waits for its trace to go quiet.
const tracesMost = 10 * time.Second

// traceEnv is a hook call's OpenTelemetry environment when traces are on: the receiver as
// the exporter's endpoint, a TRACEPARENT in the attempt's trace whose parent is this call
// (each try of each turn its own), and the call's token, which the receiver takes its spans with: as an
// export header for the SDKs, and in TRACESTATE for the services the agent passes the
// trace on to (package otlp, token.go). They win over the inherited ones, the traces-only
// variants too.
func (a *attemptRun) traceEnv(inv invocation) []string {
	if a.trace == "" {
		return nil
	}
	call := inv.call()
	if inv.phase == spec.Execute {
		a.expect = append(a.expect, call)
	}
	parent, token := a.r.cfg.Traces.Traceparent(a.trace, call)
	endpoint, header := a.r.cfg.Traces.Endpoint(), strings.ToLower(record.TraceTokenHeader)+"="+token
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + endpoint + "/v1/traces",
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf", "OTEL_TRACES_EXPORTER=otlp",
		"OTEL_EXPORTER_OTLP_HEADERS=" + header, "OTEL_EXPORTER_OTLP_TRACES_HEADERS=" + header,
		"TRACEPARENT=" + parent, "TRACESTATE=" + record.TraceStateKey + "=" + token}
	if !a.setsOwn(scheduleDelay) {
		env = append(env, scheduleDelay+"="+fmt.Sprint(hookScheduleDelay.Milliseconds()))
	}
	return env
}

// scheduleDelay is the variable the OpenTelemetry SDKs for Go, JavaScript and Python read
// for their batch processor's export interval (5 s by default: a hook that does not flush
// before it replies would export after the trace settled). A hook is given
// hookScheduleDelay, well inside the default quiet window, unless the profile's hook_env
// or the run's environment sets its own.
const (
	scheduleDelay     = "OTEL_BSP_SCHEDULE_DELAY"
	hookScheduleDelay = 100 * time.Millisecond
)

// setsOwn reports whether the profile's hook_env or the run's environment sets name.
func (a *attemptRun) setsOwn(name string) bool {
	if _, ok := a.r.cfg.Profile.HookEnv[name]; ok {
		return true
	}
	for _, kv := range a.r.cfg.Env {
		if k, _, _ := strings.Cut(kv, "="); k == name {
			return true
		}
	}
	return false
}

// settleTrace waits, once this process has run the attempt's hooks with traces on, until
// no span has arrived for the quiet period, and keeps the trace in evidence/traces.json,
// saying whether it is whole; a trace an earlier process kept (the attempt's first
// phases) is kept with it. It runs when the process runs no more of the attempt's hooks,
// whether it judges it or not, so that a run split across processes loses no span.
func (a *attemptRun) settleTrace() {
	if a.trace == "" || !a.ranNow || a.settled {
		return
	}
	a.settled = true
	quiet := a.r.cfg.TracesQuiet
	if quiet <= 0 {
		quiet = 500 * time.Millisecond
	}
	t := a.r.cfg.Traces.Settle(a.trace, quiet, tracesMost, a.expect)
	path := filepath.Join(a.dir, "evidence", tracesFile)
	if earlier, err := readTrace(path); err == nil {
		t = mergeTraces(earlier, t)
	}
	a.record(a.r.cfg.Redactor.JSON(path, t))
	if a.log != nil {
		msg := fmt.Sprintf("trace %s: %d span(s)", t.TraceID, len(t.Spans))
		if t.Incomplete != "" {
			msg += "; incomplete: " + t.Incomplete
		}
		a.log(msg)
	}
}
