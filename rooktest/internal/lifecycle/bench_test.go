package lifecycle_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rookgo/rookgo/internal/otlp"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/internal/testkit"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// BenchmarkHookCall compares hook calls made bare (exec the same node script, stdin given,
// stdout read) with the same calls made by the harness, records included: a scenario of
// three turns through all five hooks (open, execute x3, close, collect, with prepare made
// once), against the same six calls bare, in the hooks' folder as the harness runs them.
// The sides alternate which goes first, so that machine noise hits both alike; the ratio
// metric is harness time over bare time:
// go test ./rooktest/internal/lifecycle -run X -bench HookCall.
func BenchmarkHookCall(b *testing.B) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("needs node")
	}
	script, err := filepath.Abs("testdata/echo.mjs")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	hooks := "id: bench\nhooks:\n"
	for _, ph := range spec.HookPhases {
		hooks += "  " + string(ph) + ": " + script + "\n"
	}
	hooks += "capabilities: {multi_turn: true}\n"
	p, err := spec.ParseProfile(filepath.Join(dir, "bench.yaml"), dir, []byte(hooks))
	if err != nil {
		b.Fatal(err)
	}
	sc, err := scenario.Parse("SC-1.yaml", []byte("id: SC-1\ngoal: hello\nsetup_messages: [one, two]\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n"))
	if err != nil {
		b.Fatal(err)
	}
	run, err := lifecycle.New(lifecycle.Config{Workspace: dir, Agent: "bench", Profile: p, RecordsRoot: filepath.Join(dir, "runs"),
		Env: os.Environ(), Redactor: store.NewRedactor(nil), Concurrency: 1}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if perr := run.Prepare(context.Background(), nil); perr != nil {
		b.Fatal(perr)
	}
	calls := []struct{ phase, stdin string }{{"open", ""}, {"execute", "one"}, {"execute", "two"}, {"execute", "hello"}, {"close", ""}, {"collect", ""}}
	bareCalls := func() time.Duration {
		start := time.Now()
		for _, c := range calls {
			cmd := exec.Command(node, script, c.phase)
			cmd.Dir = dir
			cmd.Stdin = strings.NewReader(c.stdin)
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				b.Fatalf("bare hook: %v", err)
			}
		}
		return time.Since(start)
	}
	var own time.Duration // the harness's time outside the hook processes
	harnessCalls := func() time.Duration {
		start := time.Now()
		o := run.Scenario(context.Background(), sc, nil)
		took := time.Since(start)
		if !o.Judged() || o.Verdict.Status != "Pass" {
			b.Fatalf("scenario: %+v", o.Attempts[0])
		}
		h, err := store.ReadHooks(o.Dir)
		if err != nil {
			b.Fatal(err)
		}
		own += took
		for _, rec := range append([]*record.PhaseRecord{h.Phases.Open, h.Phases.Close, h.Phases.Collect}, h.Phases.Execute.Turns...) {
			own -= rec.EndedAt.Sub(rec.At)
		}
		if err := os.RemoveAll(o.Dir); err != nil { // each iteration is a fresh scenario
			b.Fatal(err)
		}
		return took
	}
	var bare, harness time.Duration
	var ratios []float64
	for b.Loop() {
		// Each side goes first in every other iteration.
		var h, o time.Duration
		if len(ratios)%2 == 0 {
			o = bareCalls()
			h = harnessCalls()
		} else {
			h = harnessCalls()
			o = bareCalls()
		}
		bare, harness = bare+o, harness+h
		ratios = append(ratios, float64(h)/float64(o))
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
	b.ReportMetric(float64(bare.Milliseconds())/float64(b.N), "bare-ms/op")
	b.ReportMetric(float64(harness.Milliseconds())/float64(b.N), "harness-ms/op")
	b.ReportMetric(float64(own)/float64(time.Millisecond)/float64(b.N*len(calls)), "own-ms/hook")
	b.ReportMetric(float64(harness)/float64(bare), "ratio")
}

// BenchmarkTraces runs 50 scenarios whose execute hook is an agent instrumented with the
// OpenTelemetry Go SDK (the OTel test agent (testkit.OTelAgent)), once with the run's trace receiver on
// (quiet period 100 ms) and once off, the agent exporting the same spans to an idle
// receiver, alternating in every iteration, and reports the ratio of the two, the time
// traces add per scenario, and what of it is not the quiet period's wait.
func BenchmarkTraces(b *testing.B) {
	const scenarios = 50
	idle, err := otlp.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer idle.Close()
	recv, err := otlp.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer recv.Close()
	dir := b.TempDir()
	profile := fmt.Sprintf("id: bench\nhooks:\n  execute: {command: [%q]}\ncapabilities: {calls: true}\n", testkit.OTelAgent(b))
	p, err := spec.ParseProfile(filepath.Join(dir, "bench.yaml"), dir, []byte(profile))
	if err != nil {
		b.Fatal(err)
	}
	suiteOf := make([]*scenario.Scenario, scenarios)
	for i := range suiteOf {
		id := fmt.Sprintf("SC-%02d", i+1)
		if suiteOf[i], err = scenario.Parse(id+".yaml", []byte("id: "+id+"\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: not_called, params: {name: issue_refund}}\n")); err != nil {
			b.Fatal(err)
		}
	}
	newRun := func(traces lifecycle.Tracer, env ...string) *lifecycle.Run {
		r, err := lifecycle.New(lifecycle.Config{Workspace: dir, Agent: "bench", Profile: p, RecordsRoot: b.TempDir(),
			Env: append(os.Environ(), env...), Redactor: store.NewRedactor(nil), Concurrency: 1,
			Traces: traces, TracesQuiet: 100 * time.Millisecond}, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	suite := func(r *lifecycle.Run, want record.Status) time.Duration {
		start := time.Now()
		for _, sc := range suiteOf {
			if o := r.Scenario(context.Background(), sc, nil); o.Verdict == nil || o.Verdict.Status != want {
				b.Fatalf("the scenario did not decide %s: %+v", want, o)
			}
		}
		return time.Since(start)
	}
	var on, off time.Duration
	for i := 0; b.Loop(); i++ {
		withTraces := newRun(recv)
		without := newRun(nil, "OTEL_EXPORTER_OTLP_ENDPOINT="+idle.Endpoint(), "TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
		// The side that runs first alternates, so that the machine's noise falls on both.
		if i%2 == 0 {
			on += suite(withTraces, record.Pass)
			off += suite(without, record.UnableToVerify) // without the trace, no calls are observed
		} else {
			off += suite(without, record.UnableToVerify)
			on += suite(withTraces, record.Pass)
		}
		withTraces.Close()
		without.Close()
	}
	n := time.Duration(b.N)
	b.ReportMetric(float64(on)/float64(off), "on/off")
	extra := float64((on-off)/n) / float64(time.Millisecond) / scenarios
	b.ReportMetric(extra, "extra-ms/scenario")
	b.ReportMetric(float64(off/n)/float64(time.Millisecond)/scenarios, "off-ms/scenario")
}

// BenchmarkTracesFromAService runs 10 scenarios whose hook calls an agent service started
// on its own (the OTel test agent (testkit.OTelAgent) as a service) that exports to the receiver's fixed address,
// with settle_ms at its default: once with a service that flushes before it answers, once
// with one that exports on a 1 s batch schedule, alternating, and reports what waiting for
// the latter's spans costs a scenario.
func BenchmarkTracesFromAService(b *testing.B) {
	const scenarios = 10
	agent := testkit.OTelAgent(b)
	recv, err := otlp.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer recv.Close()
	service := func(env ...string) string {
		svc := exec.Command(agent)
		svc.Env = append(append(os.Environ(), "TESTAGENT_SERVE=127.0.0.1:0", "OTEL_EXPORTER_OTLP_ENDPOINT="+recv.Endpoint()), env...)
		out, err := svc.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := svc.Start(); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = svc.Process.Kill(); _ = svc.Wait() })
		line := make([]byte, 64)
		n, err := out.Read(line) // "listening on <addr>"
		if err != nil {
			b.Fatal(err)
		}
		return strings.TrimSpace(strings.TrimPrefix(string(line[:n]), "listening on "))
	}
	flushes, batches := service(), service("TESTAGENT_LAZY=batch", "TESTAGENT_BATCH=1", "OTEL_BSP_SCHEDULE_DELAY=1000")
	dir := b.TempDir()
	suiteOf := make([]*scenario.Scenario, scenarios)
	for i := range suiteOf {
		id := fmt.Sprintf("SC-%02d", i+1)
		if suiteOf[i], err = scenario.Parse(id+".yaml", []byte("id: "+id+"\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: called, params: {name: lookup_order}}\n")); err != nil {
			b.Fatal(err)
		}
	}
	suite := func(addr string) time.Duration {
		p, err := spec.ParseProfile(filepath.Join(dir, "bench.yaml"), dir, []byte(fmt.Sprintf("id: bench\nhooks:\n  execute: {command: [%q]}\nhook_env: {TESTAGENT_CALL: %q}\n", agent, addr)))
		if err != nil {
			b.Fatal(err)
		}
		r, err := lifecycle.New(lifecycle.Config{Workspace: dir, Agent: "bench", Profile: p, RecordsRoot: b.TempDir(), Env: os.Environ(),
			Redactor: store.NewRedactor(nil), Concurrency: 1, Traces: recv, TracesQuiet: 100 * time.Millisecond, TracesServices: spec.ServiceSchedule}, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		start := time.Now()
		for _, sc := range suiteOf {
			if o := r.Scenario(context.Background(), sc, nil); o.Verdict == nil || o.Verdict.Status != record.Pass {
				b.Fatalf("the scenario did not pass: %+v", o)
			}
		}
		return time.Since(start)
	}
	var flushed, batched time.Duration
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			flushed += suite(flushes)
			batched += suite(batches)
		} else {
			batched += suite(batches)
			flushed += suite(flushes)
		}
	}
	per := func(d time.Duration) float64 {
		return float64(d) / float64(time.Millisecond) / float64(b.N) / scenarios
	}
	b.ReportMetric(per(flushed), "flushes-ms/scenario")
	b.ReportMetric(per(batched), "batch-1s-ms/scenario")
	b.ReportMetric(float64(batched)/float64(flushed), "batch/flushes")
}
