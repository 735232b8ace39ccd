package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/testkit"
)

// A profile with traces: otlp runs its suite through go test with the trace receiver on:
// an agent instrumented with the OpenTelemetry Go SDK, whose hook prints no calls, passes
// and fails criteria on its spans, and report.html draws them.
func TestTracesThroughGoTest(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  execute: {command: [%q]}
traces: otlp
traces_quiet_ms: 100
capabilities: {calls: true, usage: true}
`, testkit.OTelAgent(t)))
	// A twin whose hook exports nothing, as a service started without the endpoint would.
	write(t, dir, "profiles/fake/silent.yaml", fmt.Sprintf("id: silent\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\", FAKEHOOK_EXECUTE: 'json:{\"output\": \"order 7 shipped\"}'}\ntraces: otlp\ntraces_quiet_ms: 50\n", os.Args[0]))
	// And one whose agent exports, but in a trace of its own, which no attempt takes.
	write(t, dir, "profiles/fake/foreign.yaml", fmt.Sprintf("id: foreign\nhooks:\n  execute: {command: [%q]}\nhook_env: {TESTAGENT_FOREIGN: \"1\"}\ntraces: otlp\ntraces_quiet_ms: 50\n", testkit.OTelAgent(t)))
	linkPage(t, dir, "fake")
	write(t, dir, "scenarios/fake/SC-1.yaml", `id: SC-1
goal: where is order 7
acceptance_criteria:
  - {id: NO-REFUND, statement: s, check: not_called, params: {name: issue_refund}}
  - {id: CHARGE-OK, statement: s, check: called, params: {name: charge_card, failed: false}}
`)
	rookgen(t, dir)
	records := t.TempDir()
	res, err := goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/fake", "-run", "^TestFake$", "-rook.dir="+records, "-rook.run-id=traced")
	require.Error(t, err, "the card was declined")
	assert.Contains(t, res.all, "receiving the agent's OpenTelemetry spans at http://127.0.0.1:")
	assert.Equal(t, "pass", res.action["TestFake/SC-1/NO-REFUND_not_called_issue_refund"], res.all)
	assert.Equal(t, "fail", res.action["TestFake/SC-1/CHARGE-OK_called_charge_card"], res.all)
	assert.NotContains(t, res.all, "declares capabilities.", "calls and usage came from the spans: the capabilities are met")
	page, err := os.ReadFile(filepath.Join(records, "fake", "traced-fake", "report.html")) // two profiles: the run id names its own
	require.NoError(t, err)
	assert.Contains(t, string(page), "tool charge_card: card declined")

	// No span at all is said without -v, with the fix, and fails under -rook.strict.
	res, err = goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/fake", "-run", "^TestSilent$", "-rook.allow-undecided")
	require.NoError(t, err, res.all)
	assert.Contains(t, res.output["TestSilent"], "warning: traces are on for profile silent, and no span reached the run's trace receiver at http://127.0.0.1:")
	assert.Contains(t, res.output["TestSilent"], "give the profile a fixed address (traces: {otlp: 127.0.0.1:4318})")
	res, err = goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/fake", "-run", "^TestSilent$", "-rook.allow-undecided", "-rook.strict")
	require.Error(t, err)
	assert.Contains(t, res.output["TestSilent"], "no span reached the run's trace receiver")
	assert.Contains(t, res.output["TestSilent"], "[failing under -rook.strict]")
	res, err = goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/fake", "-run", "^TestForeign$", "-rook.allow-undecided")
	require.NoError(t, err, res.all)
	assert.Contains(t, res.output["TestForeign"], "export request(s) reached the run's trace receiver at http://127.0.0.1:")
	assert.Contains(t, res.output["TestForeign"], "and none held a span of any attempt (4 span(s) named no attempt's trace;")
}

// An agent service started on its own, before the run and outside the hooks, exports its
// spans with the OTel Go SDK to the run's fixed receiver address (traces: {otlp: ...}).
// The hook rookgen init --curl wrote sends the trace context with each request; the
// service's spans carry it back, token included, and called and not_called are decided
// from them.
func TestAServiceOnItsOwnExportsToTheFixedAddress(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("the hook init writes needs node")
	}
	receiver, service := startService(t)

	dir := newModule(t)
	var stdout, stderr bytes.Buffer
	curl := fmt.Sprintf(`curl -X POST http://%s/chat -H 'Content-Type: application/json' -d '{"message": "{{goal}}"}'`, service)
	require.Equal(t, 0, run([]string{"init", "svc", "--curl", curl, "--reply", "$.reply", "-root", dir}, &stdout, &stderr), stderr.String())
	profile := filepath.Join(dir, "profiles", "svc", "local.yaml")
	data, err := os.ReadFile(profile)
	require.NoError(t, err)
	require.NotContains(t, string(data), "traces:")
	require.NoError(t, os.WriteFile(profile, append(data, []byte("traces: {otlp: '"+receiver+"', settle_ms: 200}\ntraces_quiet_ms: 200\n")...), 0o644))
	write(t, dir, "scenarios/svc/SC-002.yaml", `id: SC-002
goal: where is order 7
acceptance_criteria:
  - {id: LOOKS, statement: s, check: called, params: {name: lookup_order}}
  - {id: NO-REFUND, statement: s, check: not_called, params: {name: issue_refund}}
`)
	rookgen(t, dir)
	records := t.TempDir()
	res, err := goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/svc", "-rook.dir="+records, "-rook.run-id=svc")
	require.NoError(t, err, res.all)
	assert.Contains(t, res.all, "receiving the agent's OpenTelemetry spans at http://"+receiver)
	assert.Equal(t, "pass", res.action["TestLocal/SC-002/LOOKS_called_lookup_order"], res.all)
	assert.Equal(t, "pass", res.action["TestLocal/SC-002/NO-REFUND_not_called_issue_refund"], res.all)
	var tr record.Trace
	data, err = os.ReadFile(filepath.Join(records, "svc", "svc", "scenarios", "SC-002", "evidence", "traces.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &tr))
	assert.Len(t, tr.Spans, 2, "the service's spans, taken with the token its tracestate carried")
	assert.Zero(t, tr.Unsigned)
	assert.Empty(t, tr.Incomplete)
}

// A service on the fixed address that exports on the OpenTelemetry Go SDK's default batch
// schedule (5 s), after it answered, behind a hook whose own spans make a tree that looks
// whole, in the last scenario of the run: the attempt's trace stays open for the service's
// schedule (traces: {otlp: ...} waits 6 s unless settle_ms says), so the lookup it made is
// in the verdict and not_called fails, in the test and the records, with nothing late.
func TestAServiceOnItsBatchScheduleIsWaitedFor(t *testing.T) {
	// Not parallel: it builds a module while make test-long's other tests time their agents
	// by the clock (TestInitFromCurl), and runs before them instead.
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	receiver, service := startService(t, "TESTAGENT_LAZY=batch", "TESTAGENT_BATCH=1")
	dir := newModule(t)
	write(t, dir, "profiles/lazy/lazy.yaml", fmt.Sprintf("id: lazy\nhooks:\n  execute: {command: [%q]}\nhook_env: {TESTAGENT_CALL: %q}\ntraces: {otlp: '%s'}\n",
		testkit.OTelAgent(t), service, receiver))
	write(t, dir, "scenarios/lazy/SC-1.yaml", `id: SC-1
goal: where is order 7
acceptance_criteria:
  - {id: SHIPPED, statement: s, check: contains, params: {text: shipped}}
  - {id: NO-LOOKUP, statement: s, check: not_called, params: {name: lookup_order}}
`)
	rookgen(t, dir)
	records := t.TempDir()
	res, err := goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/lazy", "-rook.dir="+records, "-rook.run-id=lazy")
	require.Error(t, err, "the service's lookup, exported on its schedule, fails NO-LOOKUP: "+res.all)
	assert.Equal(t, "fail", res.action["TestLazy/SC-1/NO-LOOKUP_not_called_lookup_order"], res.all)
	assert.Equal(t, "pass", res.action["TestLazy/SC-1/SHIPPED_contains_shipped"], res.all)
	assert.NotContains(t, res.all, "arrived after it was judged")
	verdict, err := os.ReadFile(filepath.Join(records, "lazy", "lazy", "scenarios", "SC-1", "verdict.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(verdict), "status: Fail")
	run, err := os.ReadFile(filepath.Join(records, "lazy", "lazy", "run.yaml"))
	require.NoError(t, err)
	assert.NotContains(t, string(run), "late_spans:")
}

// A service slower than its profile says (settle_ms: 200, while it exports a second after
// it answers), with a scenario still running after it: the spans come after SC-1 was
// judged, join its trace, and decide it again. verdict.yaml, report.yaml and the page say
// Fail, and the run fails naming what changed; SC-1's own subtest had ended by then.
func TestALateSpanDecidesItsVerdictAgain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	receiver, service := startService(t, "TESTAGENT_LAZY=1s", "TESTAGENT_BATCH=1", "OTEL_BSP_SCHEDULE_DELAY=600000")
	dir := newModule(t)
	write(t, dir, "profiles/lazy/lazy.yaml", fmt.Sprintf("id: lazy\nhooks:\n  execute: {command: [%q]}\nhook_env: {TESTAGENT_CALL: %q}\ntraces: {otlp: '%s', settle_ms: 200}\n",
		testkit.OTelAgent(t), service, receiver))
	linkPage(t, dir, "lazy")
	write(t, dir, "scenarios/lazy/SC-1.yaml", `id: SC-1
goal: where is order 7
acceptance_criteria:
  - {id: NO-LOOKUP, statement: s, check: not_called, params: {name: lookup_order}}
`)
	write(t, dir, "scenarios/lazy/SC-2.yaml", `id: SC-2
goal: where is order 8, slowly
acceptance_criteria:
  - {id: SHIPPED, statement: s, check: contains, params: {text: shipped}}
`)
	rookgen(t, dir)
	records := t.TempDir()
	res, err := goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/lazy", "-rook.dir="+records, "-rook.run-id=lazy")
	require.Error(t, err, res.all)
	assert.Contains(t, res.output["TestLazy"], "span(s) of SC-1 attempt 1 arrived after it was judged")
	assert.Contains(t, res.output["TestLazy"], "decided again with them, SC-1 is Fail, not Pass (NO-LOOKUP (not_called): Pass → Fail)")
	base := filepath.Join(records, "lazy", "lazy")
	verdict, err := os.ReadFile(filepath.Join(base, "scenarios", "SC-1", "verdict.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(verdict), "status: Fail")
	assert.Contains(t, string(verdict), "decided_again: at the run's end")
	report, err := os.ReadFile(filepath.Join(base, "report.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(report), "late_spans:")
	assert.Contains(t, string(report), "now: Fail")
	page, err := os.ReadFile(filepath.Join(base, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "decided again at the run&#39;s end")
	assert.Contains(t, string(page), "late: arrived after the attempt was first judged")
}

// startService starts the OTel test agent (testkit.OTelAgent) as a service on its own, with env added to its
// environment, exporting to a fixed receiver address; it returns that address and the
// service's, once the service says it listens.
func startService(t *testing.T, env ...string) (receiver, service string) {
	t.Helper()
	free := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close()
		return ln.Addr().String()
	}
	receiver, service = free(), free()
	svc := exec.Command(testkit.OTelAgent(t))
	svc.Env = append(append(os.Environ(), "TESTAGENT_SERVE="+service, "OTEL_EXPORTER_OTLP_ENDPOINT=http://"+receiver), env...)
	out, err := svc.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, svc.Start())
	t.Cleanup(func() { _ = svc.Process.Kill(); _ = svc.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n') // it says when it listens
	require.NoError(t, err)
	require.Contains(t, line, "listening on")
	return receiver, service
}
