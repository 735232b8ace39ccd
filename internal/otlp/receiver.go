// Package otlp is the run's OpenTelemetry trace receiver: OTLP/HTTP on the loopback
// interface (/v1/traces, protobuf or JSON, decoded by the collector's pdata), each scenario
// attempt a trace of its own whose id every hook of the attempt is given (TRACEPARENT), so
// that an agent that propagates context puts its spans in that attempt. Everything a
// client sends is hostile input: bodies, spans and attributes are bounded, text is
// redacted as it arrives, and spans of no attempt are counted and dropped.
package otlp

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Bounds on what a client may send.
const (
	// MaxBody is the largest export request read.
	MaxBody = 4 << 20
	// MaxSpans is how many spans one attempt keeps; MaxBytes how many bytes of their
	// names and attributes. What is over is dropped, and the trace is then incomplete.
	MaxSpans = 2000
	MaxBytes = 2 << 20
)

// Receiver receives OTLP/HTTP traces for the attempts of one run.
type Receiver struct {
	ln  net.Listener
	srv *http.Server

	mu    sync.Mutex
	sinks map[[16]byte]*Sink
	// stray counts the spans that named no attempt's trace.
	stray int
}

// Start listens on a free loopback port.
func Start() (*Receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the trace receiver: %w", err)
	}
	r := &Receiver{ln: ln, sinks: map[[16]byte]*Sink{}}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = r.srv.Serve(ln) }() // ends with Close
	return r, nil
}

// Endpoint is the receiver's base URL, as OTEL_EXPORTER_OTLP_ENDPOINT names it: exporters
// add /v1/traces.
func (r *Receiver) Endpoint() string { return "http://" + r.ln.Addr().String() }

// Close stops the receiver.
func (r *Receiver) Close() error { return r.srv.Close() }

// Stray is how many spans named no attempt's trace.
func (r *Receiver) Stray() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stray
}

// Attempt opens a new trace for one attempt; its spans are kept until Release. redact
// rewrites secrets out of what arrives.
func (r *Receiver) Attempt(redact func(string) string) *Sink {
	s := &Sink{redact: redact, parents: map[[8]byte]string{}}
	_, _ = rand.Read(s.trace[:]) // crypto/rand never fails
	r.mu.Lock()
	r.sinks[s.trace] = s
	r.mu.Unlock()
	return s
}

// Release forgets an attempt's trace: spans that arrive for it later are stray.
func (r *Receiver) Release(s *Sink) {
	r.mu.Lock()
	delete(r.sinks, s.trace)
	r.mu.Unlock()
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" {
		http.NotFound(w, req)
		return
	}
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "POST an OTLP export request", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, MaxBody+1))
	if err != nil {
		http.Error(w, "read the request", http.StatusBadRequest)
		return
	}
	if len(body) > MaxBody {
		http.Error(w, fmt.Sprintf("an export request is at most %d bytes", MaxBody), http.StatusRequestEntityTooLarge)
		return
	}
	// An export request is, on the wire, a TracesData: pdata's own decoders read it
	// (ptraceotlp would read it the same, and link a gRPC server into every test binary).
	asJSON := strings.HasPrefix(req.Header.Get("Content-Type"), "application/json")
	var td ptrace.Traces
	if asJSON {
		td, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(body)
	} else {
		td, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(body)
	}
	if err != nil {
		http.Error(w, "not an OTLP trace export request", http.StatusBadRequest)
		return
	}
	r.take(td)
	// The response is an ExportTraceServiceResponse with nothing partial to report: empty
	// in protobuf, {} in JSON.
	if asJSON {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte("{}"))
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// take files each span under its attempt's trace.
func (r *Receiver) take(td ptrace.Traces) {
	rss := td.ResourceSpans()
	now := time.Now()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		service := ""
		if v, ok := rs.Resource().Attributes().Get("service.name"); ok {
			service = v.AsString()
		}
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				sp := spans.At(k)
				r.mu.Lock()
				s := r.sinks[[16]byte(sp.TraceID())]
				if s == nil {
					r.stray++
				}
				r.mu.Unlock()
				if s != nil {
					s.add(sp, service, now)
				}
			}
		}
	}
}

// ErrClosed is returned by a sink's wait when the receiver has stopped.
var ErrClosed = errors.New("the trace receiver stopped")

func hexID(b []byte) string { return hex.EncodeToString(b) }
