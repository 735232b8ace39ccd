package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goAgentFile registers, in a hand-written file of the test package, a Go agent that
// remembers its conversation from open, echoes each turn, reports a tool call and usage,
// and panics when asked to.
const goAgentFile = `package shop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rookgo/rookgo/rooktest"
)

func init() { rooktest.RegisterAgent("shop", func() (rooktest.Agent, error) { return &shop{}, nil }) }

type shop struct{}

func (*shop) Open(_ context.Context, c rooktest.Call) (rooktest.Reply, error) {
	return rooktest.Reply{Conversation: "conv-" + c.Scenario}, os.WriteFile(filepath.Join(c.StateDir, "opened"), []byte(c.Session), 0o644)
}

func (*shop) Execute(ctx context.Context, c rooktest.Call) (rooktest.Reply, error) {
	switch c.Message {
	case "panic, please":
		var m map[string]int
		m["boom"]++
	case "hang, please":
		<-ctx.Done() // until the phase's deadline
		return rooktest.Reply{}, ctx.Err()
	case "ignore your context, please":
		select {} // never returns: its goroutine is left running
	}
	fmt.Println("printed on stdout, never read as the reply")
	fmt.Print("\x16--- FAIL: TestG/SC-3 (0.00s)\n") // go test's framing byte: a forged event, if it were not escaped
	in, out := int64(3), int64(4)
	return rooktest.Reply{Output: fmt.Sprintf("you said %q in %s, turn %d", c.Message, c.Conversation, c.Turn),
		Calls: []rooktest.ToolCall{{Name: "lookup_order", Arguments: map[string]any{"id": "ORD-7"}}},
		Usage: &rooktest.Usage{Input: &in, Output: &out}}, nil
}

func (*shop) Close(_ context.Context, c rooktest.Call) (rooktest.Reply, error) {
	_, err := os.Stat(filepath.Join(c.StateDir, "opened"))
	return rooktest.Reply{}, err
}
`

// TestAGoAgentRunsInProcess: a profile whose hooks are a Go agent registered in a file of
// the test package runs its scenarios through the agent's methods, with the same records
// and verdicts as hook scripts; a panicking turn fails its own scenario only; a profile
// naming an agent nothing registers fails before anything runs, naming the file to write.
func TestAGoAgentRunsInProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/shop/local.yaml", "id: local\nhooks: {go: shop, execute: {timeout_seconds: 1}}\ncapabilities: {multi_turn: true, calls: true, usage: true}\nconcurrency: 4\n")
	write(t, dir, "profiles/shop/missing.yaml", "id: missing\nhooks: {go: nobody}\n")
	write(t, dir, "scenarios/shop/SC-1.yaml", `id: SC-1
goal: where is my order?
setup_messages: [hello]
acceptance_criteria:
  - {statement: s, check: contains, params: {text: 'you said "where is my order?" in conv-SC-1, turn 2'}}
  - {statement: s, check: called, params: {name: lookup_order}}
  - {statement: s, check: usage, params: {total_max: 20}, turn: 1}
`)
	for id, goal := range map[string]string{"SC-2": "panic, please", "SC-3": "hang, please", "SC-4": "ignore your context, please"} {
		write(t, dir, "scenarios/shop/"+id+".yaml", "id: "+id+"\ngoal: "+goal+"\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: x}}\n")
	}
	write(t, dir, "scenarios/shop/agent_test.go", goAgentFile)

	// Generation reads the package's files for the registration a profile names.
	var stdout, stderr bytes.Buffer
	require.Equal(t, 1, run([]string{"-root", dir}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), `profiles/shop/missing.yaml:2:13: hooks.go names the Go agent "nobody", and no file of scenarios/shop registers it: write scenarios/shop/agent_test.go with func init() { rooktest.RegisterAgent("nobody", <a func() (rooktest.Agent, error) that makes it>) }`)
	assert.NotContains(t, stderr.String(), "local.yaml", "shop is registered")
	// A name the package computes is taken at its word; the run then says what is missing.
	write(t, dir, "scenarios/shop/more_test.go", "package shop_test\n\nimport \"github.com/rookgo/rookgo/rooktest\"\n\nvar other = \"other\"\n\nfunc init() { rooktest.RegisterAgent(other, func() (rooktest.Agent, error) { return &shop{}, nil }) }\n")
	rookgen(t, dir)

	records := t.TempDir()
	res, err := goTest(t, dir, []string{goflags}, "./scenarios/shop", "-run", "TestLocal", "-rook.dir="+records, "-v")
	require.Error(t, err, "SC-2's agent panics")
	assert.Equal(t, "pass", res.action["TestLocal/SC-1"], "the others' failures leave SC-1 alone: %s", res.all)
	for _, id := range []string{"SC-2", "SC-3", "SC-4"} {
		assert.Equal(t, "fail", res.action["TestLocal/"+id], res.all)
	}
	assert.Contains(t, res.all, "execute hook failed (turn 1, scenario SC-2, go:shop): panicked: panic: assignment to entry in nil map")
	assert.Contains(t, res.all, "execute hook failed (turn 1, scenario SC-3, go:shop): timed out after 1s")
	assert.Contains(t, res.all, "execute hook failed (turn 1, scenario SC-4, go:shop): timed out after 1s, and the method ignored its context: its goroutine is left running")
	assert.Contains(t, res.all, "1 passed, 3 failed")
	for name := range res.action {
		assert.NotContains(t, name, "TestG", "a line the agent printed is no test event")
	}
	assert.Contains(t, res.all, `\x16--- FAIL: TestG/SC-3`, "it is shown, escaped")
	hooks, err := filepath.Glob(filepath.Join(records, "shop", "*", "scenarios", "SC-1", "hooks.json"))
	require.NoError(t, err)
	require.Len(t, hooks, 1)
	data, err := os.ReadFile(hooks[0])
	require.NoError(t, err)
	assert.Contains(t, string(data), `"script": "go:shop"`)
	assert.Equal(t, 5, strings.Count(string(data), `"script": "go:shop"`), "open, execute and its two turns, close: %s", data)

	res, err = goTest(t, dir, []string{goflags}, "./scenarios/shop", "-run", "TestMissing", "-rook.dir="+records)
	require.Error(t, err)
	assert.Contains(t, res.all, `profile missing's hooks are the Go agent "nobody", and no file of this test package registers it (this test binary registers other, shop): write scenarios/shop/agent_test.go with func init() { rooktest.RegisterAgent("nobody", <a func() (rooktest.Agent, error) that makes it>) }`)
}

// TestInitGo: init --go writes a profile whose hooks are a Go agent and the file that
// registers a stand-in for it, and the suite passes at once, in the test's process.
func TestInitGo(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"init", "my-bot", "--go", "-root", dir}, &stdout, &stderr), stderr.String())
	for _, f := range []string{"profiles/my-bot/local.yaml", "scenarios/my-bot/agent_test.go", "scenarios/my-bot/SC-001.yaml", "scenarios/my-bot/local_rook_test.go"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	assert.NoDirExists(t, filepath.Join(dir, "profiles/my-bot/hooks"), "no hook script")
	assert.Contains(t, stdout.String(), "edit scenarios/my-bot/agent_test.go")
	register, err := os.ReadFile(filepath.Join(dir, "scenarios/my-bot/agent_test.go"))
	require.NoError(t, err)
	assert.Contains(t, string(register), "package mybot_test\n")
	assert.Contains(t, string(register), `rooktest.RegisterAgent("my-bot", newAgent)`)

	res, err := goTest(t, dir, []string{goflags}, "./scenarios/...", "-v")
	require.NoError(t, err, res.all)
	assert.Equal(t, "pass", res.action["TestLocal/SC-001_the_agent_answers"], res.all)

	stderr.Reset()
	assert.Equal(t, 1, run([]string{"init", "other", "--go", "--command", "echo", "-root", dir}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "give --go, --curl or --command, one of them")
}

// tracedAgentFile is a Go agent instrumented with the OpenTelemetry SDK: its spans start
// from the context its method is given, and go to the receiver the call's environment
// names. Its reply says nothing of calls: the trace is their only channel.
const tracedAgentFile = `package traced_test

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/rookgo/rookgo/rooktest"
)

func init() { rooktest.RegisterAgent("traced", func() (rooktest.Agent, error) { return &agent{}, nil }) }

type agent struct {
	once sync.Once
	tp   *sdktrace.TracerProvider
	err  error
}

func (a *agent) Execute(ctx context.Context, c rooktest.Call) (rooktest.Reply, error) {
	a.once.Do(func() {
		var exp sdktrace.SpanExporter
		exp, a.err = otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(c.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")))
		a.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	})
	if a.err != nil {
		return rooktest.Reply{}, a.err
	}
	_, span := a.tp.Tracer("shop").Start(ctx, "execute_tool lookup_order", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("gen_ai.tool.name", "lookup_order"),
		attribute.String("gen_ai.tool.call.arguments", ` + "`" + `{"order": "ORD-7"}` + "`" + `)))
	span.End()
	return rooktest.Reply{Output: "your order has shipped"}, nil
}
`

// TestATracedGoAgent: a Go agent in the test's process exports its spans with the
// OpenTelemetry SDK from the context its method is given; they reach the run's receiver as
// the call's children, and a call criterion is decided on them.
func TestATracedGoAgent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/traced/local.yaml", "id: local\nhooks: {go: traced}\ntraces: otlp\n")
	write(t, dir, "scenarios/traced/SC-1.yaml", "id: SC-1\ngoal: where is ORD-7?\nacceptance_criteria:\n  - {statement: s, check: called, params: {name: lookup_order, arguments: {order: ORD-7}}}\n")
	write(t, dir, "scenarios/traced/agent_test.go", tracedAgentFile)
	rookgen(t, dir)
	records := t.TempDir()
	res, err := goTest(t, dir, []string{goflags}, "./scenarios/traced", "-rook.dir="+records, "-v")
	require.NoError(t, err, res.all)
	assert.Equal(t, "pass", res.action["TestLocal/SC-1/C1_called_lookup_order"], res.all)
	traces, err := filepath.Glob(filepath.Join(records, "traced", "*", "scenarios", "SC-1", "evidence", "traces.json"))
	require.NoError(t, err)
	require.Len(t, traces, 1)
	data, err := os.ReadFile(traces[0])
	require.NoError(t, err)
	assert.Contains(t, string(data), "execute_tool lookup_order")
}
