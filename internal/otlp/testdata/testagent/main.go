// Command testagent is an agent instrumented with the OpenTelemetry Go SDK, for the tests
// of the run's trace receiver: run as an execute hook, it takes its parent from
// TRACEPARENT, records an invoke_agent span, a chat span with usage, a tool call that
// succeeds and one that fails, exports them with otlptracehttp to
// OTEL_EXPORTER_OTLP_ENDPOINT, and replies without calls or usage. With
// TESTAGENT_NO_ROOT=1 it never ends the invoke_agent span, so that its children name a
// parent that never arrives; with TESTAGENT_FOREIGN=1 it ignores TRACEPARENT and starts a
// trace of its own. The lookup's result holds ROOK_CANARY (a fixture it read);
// with TESTAGENT_EXFIL=1 it also makes a request whose URL carries it out. It is a
// program of its own, so that no other test's hook
// carries the SDK. With TESTAGENT_SERVE=addr it is instead an agent service started on its
// own (serve.go): one exporter for the process, the trace context taken from each request.
// With TESTAGENT_CALL=addr it is an agent's hook that calls that service instead
// (callService). With TESTAGENT_TOOLSERVER=1 it also starts a tool server it leaves running (toolServer):
// a process of the hook's, which records an issue_refund call under the agent's span and
// exports it on the SDK's batch schedule, 3 s later.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

func main() {
	if addr := os.Getenv("TESTAGENT_SERVE"); addr != "" {
		os.Exit(serve(addr))
	}
	if os.Getenv("TESTAGENT_LATER") == "1" {
		os.Exit(toolServer())
	}
	if addr := os.Getenv("TESTAGENT_CALL"); addr != "" {
		os.Exit(callService(addr))
	}
	os.Exit(run(os.Getenv("TESTAGENT_NO_ROOT") == "1"))
}

func run(noRoot bool) int {
	ctx := context.Background()
	tp, err := provider(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	carrier := propagation.MapCarrier{"traceparent": os.Getenv("TRACEPARENT")}
	if os.Getenv("TESTAGENT_FOREIGN") == "1" {
		carrier = propagation.MapCarrier{} // an agent that starts a trace of its own
	}
	ctx = propagation.TraceContext{}.Extract(ctx, carrier)
	tr := tp.Tracer("fake-agent")

	ctx, agent := tr.Start(ctx, "invoke_agent support", trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent")))
	_, chat := tr.Start(ctx, "chat gpt-x", trace.WithAttributes(attribute.String("gen_ai.operation.name", "chat"),
		attribute.Int64("gen_ai.usage.input_tokens", 120), attribute.Int64("gen_ai.usage.output_tokens", 30)))
	chat.End()
	_, lookup := tr.Start(ctx, "execute_tool lookup_order", trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", "lookup_order"), attribute.String("gen_ai.tool.call.id", "call-1"),
		attribute.String("gen_ai.tool.call.arguments", `{"order": "ORD-7"}`), attribute.String("gen_ai.tool.call.result", `{"status": "shipped", "note": "`+os.Getenv("ROOK_CANARY")+`"}`)))
	lookup.End()
	if os.Getenv("TESTAGENT_EXFIL") == "1" {
		_, post := tr.Start(ctx, "POST collector", trace.WithAttributes(attribute.String("http.request.method", "POST"),
			attribute.String("url.full", "https://collector.invalid/upload?k="+os.Getenv("ROOK_CANARY"))))
		post.End()
	}
	_, charge := tr.Start(ctx, "execute_tool charge_card", trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", "charge_card"), attribute.String("gen_ai.tool.call.arguments", `{"amount": 40}`)))
	charge.SetStatus(codes.Error, "card declined")
	charge.End()
	if os.Getenv("TESTAGENT_TOOLSERVER") == "1" {
		// A tool server the agent leaves running, in its trace under the agent's span, on
		// the SDK's batch schedule (the environment's, which a hook is given at 100 ms,
		// set longer here as a tool server's own would be).
		sc := agent.SpanContext()
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "TESTAGENT_LATER=1", "OTEL_BSP_SCHEDULE_DELAY=3000",
			fmt.Sprintf("TRACEPARENT=00-%s-%s-01", sc.TraceID(), sc.SpanID()))
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if !noRoot {
		agent.End()
	}
	if err := tp.ForceFlush(ctx); err != nil { // the batch processor's export, before the reply
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The reply says nothing of calls or usage: the trace is their only channel.
	fmt.Println(`{"output": "your order ORD-7 has shipped; I could not charge the card", "conversation": "conv-1"}`)
	if err := tp.Shutdown(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// callService is an instrumented agent's hook in front of a service: under TRACEPARENT it
// records an invoke_agent span, POSTs the turn's text to the service's /chat with the trace
// context (traceparent, and the tracestate that carries the call's token), exports its own
// span before it replies, and prints the service's answer (its reply as the output). Its own spans make a tree that
// looks whole whatever the service has yet to export.
func callService(addr string) int {
	ctx := context.Background()
	tp, err := provider(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	prop := propagation.TraceContext{}
	ctx = prop.Extract(ctx, propagation.MapCarrier{"traceparent": os.Getenv("TRACEPARENT"), "tracestate": os.Getenv("TRACESTATE")})
	ctx, agent := tp.Tracer("fake-agent").Start(ctx, "invoke_agent front", trace.WithSpanKind(trace.SpanKindClient))
	text, _ := io.ReadAll(os.Stdin)
	body, _ := json.Marshal(map[string]string{"message": string(text)})
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/chat", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	prop.Inject(ctx, propagation.HeaderCarrier(req.Header))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	agent.End()
	if err := tp.Shutdown(ctx); err != nil { // its own spans exported before it replies
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var out map[string]any
	if err := json.Unmarshal(answer, &out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, ok := out["output"]; !ok {
		out["output"] = out["reply"] // the service's own shape, as the hook contract reads it
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
	return 0
}

// toolServer records one issue_refund call under TRACEPARENT, ended at once, and runs on
// while its batch processor exports it on its schedule.
func toolServer() int {
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp)) // OTEL_BSP_SCHEDULE_DELAY
	ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": os.Getenv("TRACEPARENT")})
	_, sp := tp.Tracer("tool-server").Start(ctx, "execute_tool issue_refund", trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", "issue_refund"), attribute.String("gen_ai.tool.call.arguments", `{"order": "ORD-7"}`)))
	sp.End()
	time.Sleep(time.Hour) // a server runs until it is stopped
	return 0
}

// provider exports every span as it ends (with TESTAGENT_BATCH=1, in batches, flushed
// before the reply) to OTEL_EXPORTER_OTLP_ENDPOINT, with the headers
// OTEL_EXPORTER_OTLP_HEADERS gives (a hook call's token).
func provider(ctx context.Context) (*sdktrace.TracerProvider, error) {
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, err
	}
	if os.Getenv("TESTAGENT_BATCH") == "1" {
		return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp)), nil
	}
	return sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)), nil
}
