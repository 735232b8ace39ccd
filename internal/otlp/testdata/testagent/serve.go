package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// serve is an agent service that runs on its own, as most do: started before the tests,
// its exporter set up once from OTEL_EXPORTER_OTLP_ENDPOINT (the run's fixed receiver
// address), with no hook's environment. Each POST /chat takes its trace context from the
// request's traceparent and tracestate headers (W3C propagation), records an invoke_agent
// span and a lookup_order tool call under it, exports them before it replies, and answers
// {"reply": ...}. With TESTAGENT_LAZY it answers {"output": ...} at once and exports
// later, as a service on its SDK's batch schedule does: TESTAGENT_LAZY=batch leaves it to
// the batch processor's own schedule (TESTAGENT_BATCH=1, OTEL_BSP_SCHEDULE_DELAY or the
// SDK's default 5 s), TESTAGENT_LAZY=<duration> flushes exactly that long after (with a
// schedule longer than that). A message that asks for it "slowly" is answered 3 s later.
// It prints "listening on <addr>" once it accepts connections.
func serve(addr string) int {
	ctx := context.Background()
	tp, err := provider(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = tp.Shutdown(ctx) }()
	tr := tp.Tracer("agent-service")
	prop := propagation.TraceContext{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /chat", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Message string `json:"message"`
		}
		_ = json.NewDecoder(r.Body).Decode(&in) // an empty message is answered the same
		ctx := prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, agent := tr.Start(ctx, "invoke_agent support", trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent")))
		_, lookup := tr.Start(ctx, "execute_tool lookup_order", trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", "lookup_order"), attribute.String("gen_ai.tool.call.arguments", `{"order": "ORD-7"}`),
			attribute.String("gen_ai.tool.call.result", `{"status": "shipped"}`)))
		lookup.End()
		agent.End()
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(in.Message, "slowly") {
			time.Sleep(3 * time.Second) // an agent that takes its time
		}
		if os.Getenv("TESTAGENT_LAZY") == "batch" {
			_ = json.NewEncoder(w).Encode(map[string]string{"output": "order ORD-7 has shipped"})
			return
		}
		if lazy, err := time.ParseDuration(os.Getenv("TESTAGENT_LAZY")); err == nil {
			// As a service whose batch goes out on its exporter's schedule, after the
			// answer: here exactly lazy later. The answer is a hook's output.
			_ = json.NewEncoder(w).Encode(map[string]string{"output": "order ORD-7 has shipped"})
			go func() {
				time.Sleep(lazy)
				_ = tp.ForceFlush(context.Background())
			}()
			return
		}
		if err := tp.ForceFlush(ctx); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"reply": "order ORD-7 has shipped"})
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("listening on", ln.Addr())
	if err := http.Serve(ln, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
