package lifecycle

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
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
// the attempt's spans have settled (record.TraceWait: the hooks' tree whole, or quiet; and
// a service on a fixed address given its schedule), and keeps the trace in
// evidence/traces.json, saying whether it is whole; a trace an earlier process kept (the
// attempt's first phases) is kept with it. It runs when the process runs no more of the
// attempt's hooks, whether it judges it or not, so that a run split across processes loses
// no span.
func (a *attemptRun) settleTrace() {
	if a.trace == "" || !a.ranNow || a.settled {
		return
	}
	a.settled = true
	w := record.TraceWait{Quiet: a.r.cfg.TracesQuiet, Services: a.r.cfg.TracesServices}
	if w.Quiet <= 0 {
		w.Quiet = 500 * time.Millisecond
	}
	w.Most = max(tracesMost, 2*w.Services)
	t := a.r.cfg.Traces.Settle(a.trace, w, a.expect)
	for _, l := range a.leftTraced {
		t.Incomplete = joinWhy(t.Incomplete, l)
	}
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

// leftWithTrace notes, for the trace, the processes a hook call with the trace's
// environment left running: the supervisor ended them when the hook exited, before an
// exporter on its batch schedule could send what they recorded, so the trace may lack
// their spans.
func (a *attemptRun) leftWithTrace(inv invocation, rec *record.PhaseRecord) {
	if len(inv.trace) == 0 || len(rec.LeftRunning) == 0 {
		return
	}
	a.leftTraced = append(a.leftTraced, fmt.Sprintf("%s left %d process(es) running with the trace's environment (%s), ended when it exited, before their spans could be exported",
		inv.call(), len(rec.LeftRunning), rec.LeftRunning[0]))
}

func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// readTrace reads an attempt's kept trace.
func readTrace(path string) (record.Trace, error) {
	var t record.Trace
	data, err := store.ReadRecord(path)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return t, fmt.Errorf("%s is corrupt: %w", tracesFile, err)
	}
	return t, nil
}

// mergeTraces is the trace of an attempt whose phases ran in two processes, each with a
// trace of its own: every span of both, and what either lost.
func mergeTraces(a, b record.Trace) record.Trace {
	out := a
	out.Spans = append(append([]record.Span(nil), a.Spans...), b.Spans...)
	out.Harness = append(append([]string(nil), a.Harness...), b.Harness...)
	out.Dropped += b.Dropped
	out.Duplicates += b.Duplicates
	out.Refused += b.Refused
	out.Unsigned += b.Unsigned
	out.CrossTalk += b.CrossTalk
	out.Foreign += b.Foreign
	if b.Incomplete != "" {
		out.Incomplete = joinWhy(out.Incomplete, b.Incomplete)
	}
	return out
}
