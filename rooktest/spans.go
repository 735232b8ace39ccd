package rooktest

import (
	"fmt"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/record"
)

// What a run says of the agent's spans once its scenarios are done: it waits for those
// still on their way, then says which came late and whether none came at all.

// silentTraces warns when traces are on, the agent replied, and no attempt had a span of
// its own: no export request reached the receiver at all, or those that did held none an
// attempt could take. Every criterion that needed the agent's trace was then Unable to
// Verify, for a reason shown only in each row. It names where the spans were expected and
// the fix.
func (r *Run) silentTraces() {
	if r.traces == nil || r.traces.Taken() > 0 {
		return
	}
	if ran, _, _, _ := r.run.Reported(); !ran {
		return
	}
	endpoint := r.traces.Endpoint()
	fix := "an agent service started on its own cannot know this run's port: give the profile a fixed address (traces: {otlp: 127.0.0.1:4318}) and start the service with OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318"
	if r.fixedTraceAddr() {
		fix = "an agent service started on its own must be started with OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint
	}
	what := fmt.Sprintf("no span reached the run's trace receiver at %s from any attempt", endpoint)
	if n := r.traces.Requests(); n > 0 {
		what = fmt.Sprintf("%d export request(s) reached the run's trace receiver at %s, and none held a span of any attempt (%d span(s) named no attempt's trace; a span is an attempt's only under its TRACEPARENT, with the call's token from OTEL_EXPORTER_OTLP_HEADERS or the tracestate the agent passes on)",
			n, endpoint, r.traces.Stray())
	}
	r.warn(r.t, fmt.Sprintf("traces are on for profile %s, and %s, so every criterion that needed the agent's trace was Unable to Verify; each hook is given OTEL_EXPORTER_OTLP_ENDPOINT=%s with its TRACEPARENT, which an agent running in its hook exports to with an OpenTelemetry SDK; %s",
		r.profile.ID, what, endpoint, fix))
}

// settleTraces waits, before the run ends and its receiver closes, for spans still on their
// way (traces: {settle_ms: ...}; spec.Profile.SettleAtEnd): an exporter on its batch
// schedule after the last scenario's hooks ended would otherwise find the receiver gone,
// and that scenario's late spans would go unsaid. What arrives is counted as late.
func (r *Run) settleTraces() {
	if ran, _, _, _ := r.run.Reported(); !ran {
		return
	}
	wait := r.profile.SettleAtEnd(r.fixedTraceAddr())
	if !r.traces.Quiet(wait, wait+settleMost) {
		logf(r.t, "rook run %s: spans were still arriving %s after the last hook; those after are not in the records", r.run.ID, wait+settleMost)
	}
}

// fixedTraceAddr reports whether the receiver listens at a fixed address (the profile's
// traces: {otlp: ...} or -rook.traces-addr), where a service started on its own may export.
func (r *Run) fixedTraceAddr() bool { return r.profile.TracesAddr != "" || r.opts.tracesAddr != "" }

// settleMost bounds how long a run's end waits past its settle time for an exporter that
// keeps sending.
const settleMost = 10 * time.Second

// lateSpans says which attempts' spans arrived after they were judged. Each was decided
// again with them at the run's end (lifecycle's lateSpans): a verdict they changed fails
// the run, naming what changed, since the scenario's own subtest had already ended with
// the verdict as it was; verdict.yaml and the report say the new one. No excuse covers it.
func lateSpans(t tb, runID string, show func(string) string, late []record.LateSpans) {
	for _, l := range late {
		what := fmt.Sprintf("rook run %s: %d span(s) of %s attempt %d arrived after it was judged (%s)",
			runID, l.Spans, l.ScenarioID, l.Attempt, show(strings.Join(l.Names, ", ")))
		fix := "export spans before the hook replies (ForceFlush), or give a service on the fixed address its schedule (traces: {settle_ms: ...})"
		switch {
		case l.NotDecided != "":
			logf(t, "%s, and were added to its trace; it was not decided again: %s", what, l.NotDecided)
		case l.Was == l.Now && len(l.Changed) == 0:
			logf(t, "%s; decided again with them, it is still %s", what, l.Now)
		default:
			changed := ""
			if len(l.Changed) > 0 {
				changed = " (" + strings.Join(l.Changed, "; ") + ")"
			}
			errorf(t, "%s; decided again with them, %s is %s, not %s%s: verdict.yaml and the report say so, while its subtest ended with the verdict as it was; %s",
				what, l.ScenarioID, l.Now, l.Was, changed, fix)
		}
	}
}
