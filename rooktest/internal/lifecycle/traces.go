package lifecycle

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/otlp"
	"github.com/rookgo/rookgo/internal/spec"
)

// tracesFile is where an attempt's trace is kept.
const tracesFile = "traces.json"

// tracesMost bounds how long an attempt waits for its trace to go quiet.
const tracesMost = 10 * time.Second

// traceEnv is a hook call's OpenTelemetry environment when traces are on: the receiver as
// the exporter's endpoint, and a TRACEPARENT in the attempt's trace whose parent is this
// call ("execute turn 2"). They win over the inherited ones.
func (a *attemptRun) traceEnv(inv invocation) []string {
	if a.sink == nil {
		return nil
	}
	label := string(inv.phase)
	if inv.phase == spec.Execute {
		label = fmt.Sprintf("execute turn %d", inv.turn)
	}
	return []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + a.r.cfg.Traces.Endpoint(), "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_TRACES_EXPORTER=otlp", "TRACEPARENT=" + a.sink.Traceparent(label)}
}

// settleTrace waits, when this process ran the attempt's hooks with traces on, until no
// span has arrived for the quiet period, and keeps the trace in evidence/traces.json,
// saying whether it is whole. The judge reads it from there.
func (a *attemptRun) settleTrace() {
	if a.sink == nil || !a.ranNow {
		return
	}
	quiet := a.r.cfg.TracesQuiet
	if quiet <= 0 {
		quiet = 500 * time.Millisecond
	}
	settled := a.sink.Quiet(quiet, tracesMost)
	var expect []string
	if h := a.hooks.Phases.Execute; h != nil {
		for _, t := range h.Turns {
			if t.OK {
				expect = append(expect, fmt.Sprintf("execute turn %d", t.Turn))
			}
		}
	}
	t := a.sink.Snapshot(expect)
	if !settled {
		t.Incomplete = joinWhy(t.Incomplete, fmt.Sprintf("spans were still arriving after %s", tracesMost))
	}
	a.record(a.r.cfg.Redactor.JSON(filepath.Join(a.dir, "evidence", tracesFile), t))
	if a.log != nil {
		msg := fmt.Sprintf("trace %s: %d span(s)", t.TraceID, len(t.Spans))
		if t.Incomplete != "" {
			msg += "; incomplete: " + t.Incomplete
		}
		a.log(msg)
	}
}

func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// applyTrace adds what the attempt's recorded trace shows to ev, and reports whether there
// was one: the trace is then the calls' channel, whatever the hooks observe.
func (a *attemptRun) applyTrace(ev *check.Evidence) bool {
	data, err := os.ReadFile(filepath.Join(a.dir, "evidence", tracesFile))
	if err != nil {
		return false // traces were off, or the trace was never settled: nothing to add
	}
	var t otlp.Trace
	if err := json.Unmarshal(data, &t); err != nil {
		a.record(fmt.Errorf("%s is corrupt: %w", tracesFile, err))
		return false
	}
	t.Apply(ev)
	return true
}
