package lifecycle_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/otlp"
	"github.com/rookgo/rookgo/internal/otlp/otlptest"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// agentService is a long-running agent service instrumented with the OpenTelemetry Go
// SDK: it takes the trace context from the request's traceparent header, calls the
// issue_refund tool, and replies without reporting calls. Its batch processor holds the
// spans until flushed (a slow batch, past any quiet window), and its exporter retries: the
// proxy in front of the receiver answers its first export 503 after passing it on, so the
// receiver is sent the same spans twice.
func agentService(t *testing.T, receiver string) (url string, tp *sdktrace.TracerProvider, exports *atomic.Int32) {
	t.Helper()
	exports = &atomic.Int32{}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		req, _ := http.NewRequest("POST", receiver+"/v1/traces", bytes.NewReader(body))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if exports.Add(1) == 1 {
			http.Error(w, "try again", http.StatusServiceUnavailable) // passed on, and answered as lost
			return
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(proxy.Close)
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(proxy.URL+"/v1/traces"),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: true, InitialInterval: 10 * time.Millisecond, MaxInterval: 50 * time.Millisecond, MaxElapsedTime: 10 * time.Second}))
	require.NoError(t, err)
	tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(time.Hour)))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tracer := tp.Tracer("agent-service")
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, agent := tracer.Start(ctx, "invoke_agent support", trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent")))
		_, refund := tracer.Start(ctx, "execute_tool issue_refund", trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", "issue_refund"), attribute.String("gen_ai.tool.call.arguments", `{"order": "ORD-7"}`)))
		refund.End()
		agent.End()
		_, _ = w.Write([]byte(`{"output": "I could not refund that order."}`))
	}))
	t.Cleanup(svc.Close)
	return svc.URL, tp, exports
}

// A real exporter whose batch arrives after the quiet window, retried once: the verdict
// does not pass not_called on the silence (the turn exported no span in time), and the
// spans that come later are counted once, named in run.yaml and report.yaml with the
// criterion they could have changed.
func TestLateSpansFromARealExporterAreNamed(t *testing.T) {
	recv, err := otlp.Start()
	require.NoError(t, err)
	t.Cleanup(func() { _ = recv.Close() })
	url, tp, exports := agentService(t, recv.Endpoint())
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": "post:" + url}, "hooks:\n  execute: {command: [BIN]}\n")
	f.cfg.Traces, f.cfg.TracesQuiet = recv, 100*time.Millisecond
	f.restart(t, nil)
	o := f.run.Scenario(context.Background(), scenario(t, "goal: refund order 7\nacceptance_criteria:\n  - {id: NO-REFUND, statement: s, check: not_called, params: {name: issue_refund}}\n"), f.logs.add)
	require.NotNil(t, o.Verdict, "%v", o.Attempts[0].Failures)
	row := o.Verdict.Criteria[0]
	assert.Equal(t, record.UnableToVerify, row.Status, row.Achieved)
	assert.Contains(t, row.Achieved, "execute turn 1 exported no span")

	require.NoError(t, tp.ForceFlush(context.Background())) // the slow batch, after the verdict
	assert.Equal(t, int32(2), exports.Load(), "the exporter retried")
	rep, err := f.run.Finish(time.Now())
	require.NoError(t, err)
	require.Len(t, rep.LateSpans, 1)
	late := rep.LateSpans[0]
	assert.Equal(t, 2, late.Spans, "two spans, sent twice, counted once")
	assert.Equal(t, []string{"issue_refund"}, late.Tools)
	assert.Equal(t, []string{"NO-REFUND (not_called)"}, late.CouldChange)
	var run record.Run
	b, err := os.ReadFile(filepath.Join(f.run.Dir, "run.yaml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, &run))
	assert.Equal(t, rep.LateSpans, run.LateSpans)
}

// A turn the agent's API asked to wait on is run again; what the first try reported is
// kept in hooks.json and observed: a call it made was made.
func TestRetriedTurnKeepsEveryTry(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": `first:{"retry_after_ms": 10, "calls": [{"name": "issue_refund", "arguments": {"order": "ORD-7"}}]} || {"output": "no refund was made", "calls": []}`},
		"hooks:\n  execute: {command: [BIN]}\n")
	o := f.run.Scenario(context.Background(), scenario(t, "goal: refund order 7\nacceptance_criteria:\n  - {id: NO-REFUND, statement: s, check: not_called, params: {name: issue_refund}}\n"), f.logs.add)
	require.NotNil(t, o.Verdict)
	assert.Equal(t, record.Fail, o.Verdict.Criteria[0].Status, o.Verdict.Criteria[0].Achieved)
	var hooks record.Hooks
	b, err := os.ReadFile(filepath.Join(o.Dir, "hooks.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &hooks))
	require.Len(t, hooks.Phases.Execute.Turns, 1)
	require.Len(t, hooks.Phases.Execute.Turns[0].Tries, 1, "the try that asked to wait is kept")
}

// A run split across processes (prepare..close, then collect and judge) keeps the spans
// the first process received: they are settled when its hooks end, not when it judges.
func TestSplitRunKeepsTheSpans(t *testing.T) {
	recv, err := otlp.Start()
	require.NoError(t, err)
	t.Cleanup(func() { _ = recv.Close() })
	f := newRun(t, nil, "hooks:\n  execute: {command: ["+strconv.Quote(otlptest.Agent(t))+"]}\n  collect: {command: [BIN]}\n")
	f.cfg.Traces, f.cfg.TracesQuiet = recv, 100*time.Millisecond
	sel, err := lifecycle.ParseSelection("prepare,open,execute,close", "", f.cfg.Profile, false)
	require.NoError(t, err)
	f.restart(t, sel)
	sc := scenario(t, tracedCriteria)
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.Nil(t, o.Verdict)
	judge, err := lifecycle.ParseSelection("collect,judge", "", f.cfg.Profile, true)
	require.NoError(t, err)
	r := f.again(t, judge)
	o = r.Scenario(context.Background(), sc, f.logs.add)
	require.NotNil(t, o.Verdict, "%s", f.logs.all())
	rows := map[string]record.Row{}
	for _, row := range o.Verdict.Criteria {
		rows[row.CriterionID] = row
	}
	assert.Equal(t, record.Pass, rows["LOOKED"].Status, rows["LOOKED"].Achieved)
	assert.Equal(t, record.Pass, rows["NO-REFUND"].Status, rows["NO-REFUND"].Achieved)
}
