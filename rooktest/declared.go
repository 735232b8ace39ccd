package rooktest

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/spec"
)

// What a run says at its end of what its profile and suite declare and it did not see.

// capabilities warns, once per run, when the profile declares calls or usage that no hook
// of this process reported: the checks that need them were Unable to Verify, not proven.
// Under -rook.strict it fails.
func (r *Run) capabilities() {
	ran, calls, usage, notes := r.run.Reported()
	if !ran {
		return
	}
	caps := r.profile.Capabilities
	for _, c := range []struct {
		declared, reported bool
		key, want          string
	}{{caps.Calls, calls, "calls", `"calls": [...] (or [] when none were made)`}, {caps.Usage, usage, "usage", `"usage": {input, output}`}} {
		if !c.declared || c.reported {
			continue
		}
		msg := fmt.Sprintf("profile %s declares capabilities.%s: true, but no hook reported %s in this run and no trace showed any, so its %s checks could not be observed; return %s from execute or collect, export the agent's spans (traces: otlp), or declare capabilities.%s: false",
			r.profile.ID, c.key, c.key, c.key, c.want, c.key)
		if near := nearMissesOf(notes, `"`+c.key+`"`); len(near) > 0 {
			msg += "; the hooks printed a near miss: " + strings.Join(near, "; ")
		}
		r.warn(r.t, msg)
	}
}

// silentTraces warns when traces are on, the agent replied, and no export request reached
// the receiver at all: every criterion that needed the agent's trace was Unable to Verify,
// for a reason shown only in each row. It names where the spans were expected and the fix.
func (r *Run) silentTraces() {
	if r.traces == nil || r.traces.Requests() > 0 {
		return
	}
	if ran, _, _, _ := r.run.Reported(); !ran {
		return
	}
	endpoint := r.traces.Endpoint()
	fix := "an agent service started on its own cannot know this run's port: give the profile a fixed address (traces: {otlp: 127.0.0.1:4318}) and start the service with OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318"
	if r.profile.TracesAddr != "" || r.opts.tracesAddr != "" {
		fix = "an agent service started on its own must be started with OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint
	}
	r.warn(r.t, fmt.Sprintf("traces are on for profile %s, and no span reached the run's trace receiver at %s from any attempt, so every criterion that needed the agent's trace was Unable to Verify; each hook is given OTEL_EXPORTER_OTLP_ENDPOINT=%s with its TRACEPARENT, which an agent running in its hook exports to with an OpenTelemetry SDK; %s",
		r.profile.ID, endpoint, endpoint, fix))
}

// settleTraces waits, before the run ends and its receiver closes, for spans still on their
// way (traces: {settle_ms: ...}; spec.Profile.SettleAtEnd): an exporter on its batch
// schedule after the last scenario's hooks ended would otherwise find the receiver gone,
// and that scenario's late spans would go unsaid. What arrives is counted as late.
func (r *Run) settleTraces() {
	if ran, _, _, _ := r.run.Reported(); !ran {
		return
	}
	wait := r.profile.SettleAtEnd(r.profile.TracesAddr != "" || r.opts.tracesAddr != "")
	if !r.traces.Quiet(wait, wait+settleMost) {
		logf(r.t, "rook run %s: spans were still arriving %s after the last hook; those after are not in the records", r.run.ID, wait+settleMost)
	}
}

// settleMost bounds how long a run's end waits past its settle time for an exporter that
// keeps sending.
const settleMost = 10 * time.Second

// toolTypos warns of a tool the suite's criteria name that no attempt was observed to call,
// when it reads like one that was: not_called of a misspelt tool passes for ever.
func (r *Run) toolTypos() {
	seen := r.run.ToolsSeen()
	if len(seen) == 0 {
		return
	}
	for _, name := range r.criterionTools {
		if slices.Contains(seen, name) {
			continue
		}
		if near := spec.Nearest(name, seen); near != "" {
			r.warn(r.t, r.show(fmt.Sprintf("the suite's criteria name tool %q, which no attempt of this run was observed to call; did you mean %q, which was called? (declare the agent's tools: in its profile to make this an error)", name, near)))
		}
	}
}

// nearMissesOf are the notes that name key as the contract's key.
func nearMissesOf(notes []string, key string) []string {
	var out []string
	for _, n := range notes {
		if strings.Contains(n, "the hook contract's key is "+key) {
			out = append(out, n)
		}
	}
	return out
}
