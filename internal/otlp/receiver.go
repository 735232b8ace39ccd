// Package otlp is the run's OpenTelemetry trace receiver: OTLP/HTTP on the loopback
// interface (/v1/traces, protobuf or JSON, plain or gzip, decoded by the collector's pdata),
// each scenario attempt a trace of its own whose id every hook of the attempt is given
// (TRACEPARENT), so that an agent that propagates context puts its spans in that attempt.
//
// Everything a client sends is hostile input: bodies, the elements they decode into,
// requests in flight, spans and attributes are bounded, and text is redacted as it
// arrives. Nothing is lost silently: a request refused whole counts against every attempt
// open while it came (its spans could have been any of theirs), spans over an attempt's
// bounds are answered as OTLP's partial success (rejected_spans) and mark its trace
// incomplete, a span sent again is kept once and counted, and spans that arrive after
// their attempt was recorded are counted as late (Late), never dropped unseen.
package otlp

import (
	"compress/gzip"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/rookgo/rookgo/internal/record"
)

// Bounds on what a client may send.
const (
	// MaxBody is the largest export request read, and the most a gzip body may inflate to.
	MaxBody = 4 << 20
	// MaxElements bounds the spans, attributes, events, links and values one request may
	// decode into, and MaxNesting how deeply its values nest: a small body of many empty
	// elements would otherwise decode into hundreds of megabytes.
	MaxElements = 1 << 17
	MaxNesting  = 32
	// InFlight is how many requests are decoded at once; the others wait their turn.
	InFlight = 2
	// MaxSpans is how many spans one attempt keeps; MaxBytes how many bytes of their
	// names and attributes. What is over is dropped, and the trace is then incomplete.
	MaxSpans = 2000
	MaxBytes = 2 << 20
)

// Receiver receives OTLP/HTTP traces for the attempts of one run.
type Receiver struct {
	ln    net.Listener
	srv   *http.Server
	slots chan struct{}

	mu    sync.Mutex
	sinks map[[16]byte]*Sink
	// tokens are every hook call's token, by the attempt it signs for (token.go).
	tokens map[string]*Sink
	// stray counts the spans that named no attempt's trace; refused the requests refused
	// whole; requests every export request that came, taken or not, and arrived when the
	// latest came, for Quiet.
	stray, refused, requests int
	// taken counts the spans taken into an attempt, in time or late.
	taken   int
	arrived arrivals
}

// ReadTimeout bounds how long one request may take to arrive, body included: a client
// that trickles its body is cut off rather than holding a connection open.
const ReadTimeout = 30 * time.Second

// Start listens on a free loopback port.
func Start() (*Receiver, error) { return start("127.0.0.1:0", ReadTimeout) }

// StartAt listens at addr, a loopback address an agent service started on its own exports
// to. Only one process can: a second go test process of the same run (go test runs
// packages side by side) is told so.
func StartAt(addr string) (*Receiver, error) {
	r, err := start(addr, ReadTimeout)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%w: another process listens there, perhaps another test package of this go test (run it with -p 1, or give each agent's profile an address of its own)", err)
	}
	return r, err
}

func start(addr string, readTimeout time.Duration) (*Receiver, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("start the trace receiver at %s: %w", addr, err)
	}
	r := &Receiver{ln: ln, sinks: map[[16]byte]*Sink{}, tokens: map[string]*Sink{}, slots: make(chan struct{}, InFlight)}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: min(10*time.Second, readTimeout), ReadTimeout: readTimeout}
	go func() { _ = r.srv.Serve(ln) }() // ends with Close
	return r, nil
}

// Endpoint is the receiver's base URL, as OTEL_EXPORTER_OTLP_ENDPOINT names it: exporters
// add /v1/traces.
func (r *Receiver) Endpoint() string { return "http://" + r.ln.Addr().String() }

// Close stops the receiver.
func (r *Receiver) Close() error { return r.srv.Close() }

// Requests is how many export requests came, whatever became of them: 0 says no process
// exported anything to the receiver.
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Quiet waits until no export request has come for quiet, counted from the later of its
// call and the last request, or until most has passed; it says whether it was quiet. A run
// calls it before it ends, so that spans still on their way (an exporter's batch schedule)
// are counted as late rather than refused by a receiver that is gone.
func (r *Receiver) Quiet(quiet, most time.Duration) bool {
	return waitQuiet(most, func() (time.Time, <-chan struct{}, time.Duration) {
		r.mu.Lock()
		defer r.mu.Unlock()
		last, next := r.arrived.watch()
		return last, next, quiet
	})
}

// Taken is how many spans were taken into an attempt (in time or late): 0 with requests
// says no attempt had any span of its own.
func (r *Receiver) Taken() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.taken
}

// Stray is how many spans named no attempt's trace.
func (r *Receiver) Stray() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stray
}

// Attempt opens a new trace for one attempt of a scenario, and returns its id. redact
// rewrites secrets out of what arrives.
func (r *Receiver) Attempt(scenario string, attempt int, redact func(string) string) string {
	s := &Sink{redact: redact, scenario: scenario, attempt: attempt, parents: map[[8]byte]record.HookCall{}, seen: map[[8]byte]bool{}, tokens: map[string]bool{}}
	_, _ = rand.Read(s.trace[:]) // crypto/rand never fails
	r.mu.Lock()
	s.refusedAtOpen = r.refused
	r.sinks[s.trace] = s
	r.mu.Unlock()
	return s.TraceID()
}

func (r *Receiver) sink(trace string) *Sink {
	var id [16]byte
	if b, err := hex.DecodeString(trace); err == nil && len(b) == len(id) {
		copy(id[:], b)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sinks[id]
}

// Traceparent is the TRACEPARENT of one hook call of the attempt whose trace is trace, and
// the call's token: spans are taken into the attempt only with it.
func (r *Receiver) Traceparent(trace string, call record.HookCall) (traceparent, token string) {
	s := r.sink(trace)
	if s == nil {
		return "", ""
	}
	traceparent, token = s.Traceparent(call)
	r.mu.Lock()
	r.tokens[token] = s
	r.mu.Unlock()
	return traceparent, token
}

// Settle waits until the attempt's spans have settled by w (or w.Most has passed), and
// returns its trace, saying why it is not complete, if it is not (expect are the hook
// calls that each must have a span under them). Spans that arrive later are late.
func (r *Receiver) Settle(trace string, w record.TraceWait, expect []record.HookCall) record.Trace {
	s := r.sink(trace)
	if s == nil {
		return record.Trace{TraceID: trace, Spans: []record.Span{}, Incomplete: "the attempt's trace was never opened"}
	}
	settled := s.quiet(w, expect)
	r.mu.Lock()
	refused := r.refused - s.refusedAtOpen
	r.mu.Unlock()
	t := s.record(expect, refused)
	if !settled {
		t.Incomplete = joinWhy(t.Incomplete, fmt.Sprintf("spans were still arriving after %s", w.Most))
	}
	return t
}

func joinWhy(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Late lists the attempts for which spans arrived after their trace was settled.
func (r *Receiver) Late() []record.LateSpans {
	r.mu.Lock()
	sinks := make([]*Sink, 0, len(r.sinks))
	for _, s := range r.sinks {
		sinks = append(sinks, s)
	}
	r.mu.Unlock()
	var out []record.LateSpans
	for _, s := range sinks {
		if l, ok := s.lateSpans(); ok {
			out = append(out, l)
		}
	}
	return out
}

// refuse answers a request refused whole, and counts it against every open attempt.
func (r *Receiver) refuse(w http.ResponseWriter, code int, why string) {
	r.mu.Lock()
	r.refused++
	r.mu.Unlock()
	http.Error(w, why, code)
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" {
		http.NotFound(w, req)
		return
	}
	r.mu.Lock()
	r.requests++
	r.arrived.arrive(time.Now())
	r.mu.Unlock()
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "POST an OTLP export request", http.StatusMethodNotAllowed)
		return
	}
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
	case <-req.Context().Done():
		r.refuse(w, http.StatusServiceUnavailable, "the receiver is busy")
		return
	}
	body, err := readBody(req)
	if err != nil {
		code := http.StatusBadRequest
		if err == errTooLarge {
			code = http.StatusRequestEntityTooLarge
		}
		r.refuse(w, code, err.Error())
		return
	}
	// An export request is, on the wire, a TracesData: pdata's own decoders read it
	// (ptraceotlp would read it the same, and link a gRPC server into every test binary).
	asJSON := strings.HasPrefix(req.Header.Get("Content-Type"), "application/json")
	var td ptrace.Traces
	if asJSON {
		err = jsonBounds(body)
		if err == nil {
			td, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(body)
		}
	} else {
		err = protoBounds(body)
		if err == nil {
			td, err = (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(body)
		}
	}
	if err != nil {
		code := http.StatusBadRequest
		if err == errTooMany {
			code = http.StatusRequestEntityTooLarge
		}
		r.refuse(w, code, "not an OTLP trace export request within the bounds: "+err.Error())
		return
	}
	rejected := r.take(td, req.Header.Get(record.TraceTokenHeader))
	writeResponse(w, asJSON, rejected)
}

var (
	errTooLarge = fmt.Errorf("an export request is at most %d bytes, inflated", MaxBody)
	errTooMany  = fmt.Errorf("an export request decodes into at most %d elements, nested at most %d deep", MaxElements, MaxNesting)
)

// readBody reads the request's body, inflating gzip, at most MaxBody bytes either way.
func readBody(req *http.Request) ([]byte, error) {
	var in io.Reader = req.Body
	switch enc := strings.ToLower(strings.TrimSpace(req.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(io.LimitReader(req.Body, MaxBody+1))
		if err != nil {
			return nil, fmt.Errorf("the gzip body does not decode: %w", err)
		}
		in = zr
	default:
		return nil, fmt.Errorf("content encoding %q is not read (send it plain or gzip)", enc)
	}
	body, err := io.ReadAll(io.LimitReader(in, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("read the request: %w", err)
	}
	if len(body) > MaxBody {
		return nil, errTooLarge
	}
	return body, nil
}

// writeResponse answers an accepted request: an ExportTraceServiceResponse, with a partial
// success when spans were rejected.
func writeResponse(w http.ResponseWriter, asJSON bool, rejected int) {
	msg := fmt.Sprintf("%d span(s) over the attempt's bounds (%d spans, %d bytes) were not kept", rejected, MaxSpans, MaxBytes)
	if asJSON {
		w.Header().Set("Content-Type", "application/json")
		if rejected == 0 {
			_, _ = w.Write([]byte("{}"))
			return
		}
		_, _ = fmt.Fprintf(w, `{"partialSuccess":{"rejectedSpans":"%d","errorMessage":%q}}`, rejected, msg)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	if rejected == 0 {
		return
	}
	var ps []byte
	ps = protowire.AppendTag(ps, 1, protowire.VarintType)
	ps = protowire.AppendVarint(ps, uint64(rejected))
	ps = protowire.AppendTag(ps, 2, protowire.BytesType)
	ps = protowire.AppendString(ps, msg)
	var out []byte
	out = protowire.AppendTag(out, 1, protowire.BytesType)
	out = protowire.AppendBytes(out, ps)
	_, _ = w.Write(out)
}

// take files each span under its attempt's trace when it carries one of the attempt's
// tokens (the request's, header, or its own tracestate's), and returns how many were
// rejected over an attempt's bounds.
func (r *Receiver) take(td ptrace.Traces, header string) (rejected int) {
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
				signer, propagated := r.signer(header, sp.TraceState().AsRaw())
				if s == nil {
					r.stray++
				}
				r.mu.Unlock()
				if !r.signed(s, signer) {
					continue
				}
				if !s.add(sp, service, propagated, now) {
					rejected++
					continue
				}
				r.mu.Lock()
				r.taken++
				r.mu.Unlock()
			}
		}
	}
	return rejected
}

// jsonBounds refuses a JSON body whose objects and lists are more than MaxElements, or
// nest deeper than MaxNesting, before it is decoded.
func jsonBounds(b []byte) error {
	n, depth, in, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case in && esc:
			esc = false
		case in && c == '\\':
			esc = true
		case in:
			in = c != '"'
		case c == '"':
			in = true
		case c == '{' || c == '[':
			n++
			depth++
			if n > MaxElements || depth > MaxNesting {
				return errTooMany
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// protoBounds walks a protobuf TracesData by its schema, counting the messages it would
// decode into (spans, attributes, events, links, values) and how deeply values nest,
// and refuses it over MaxElements or MaxNesting before it is decoded. Malformed input is
// left to the decoder to refuse.
func protoBounds(b []byte) error {
	n := 0
	var walk func(b []byte, kind byte, depth int) error
	// The fields that hold messages, by the kind of message: what each field holds.
	fields := map[byte]map[protowire.Number]byte{
		'D': {1: 'R'},                   // TracesData: resource_spans
		'R': {1: 'r', 2: 'S'},           // ResourceSpans: resource, scope_spans
		'r': {1: 'K'},                   // Resource: attributes
		'S': {1: 'c', 2: 'P'},           // ScopeSpans: scope, spans
		'c': {3: 'K'},                   // InstrumentationScope: attributes
		'P': {9: 'K', 11: 'E', 13: 'L'}, // Span: attributes, events, links
		'E': {3: 'K'},                   // Event: attributes
		'L': {4: 'K'},                   // Link: attributes
		'K': {2: 'V'},                   // KeyValue: value
		'V': {5: 'A', 6: 'k'},           // AnyValue: array_value, kvlist_value
		'A': {1: 'V'},                   // ArrayValue: values
		'k': {1: 'K'},                   // KeyValueList: values
	}
	walk = func(b []byte, kind byte, depth int) error {
		if depth > MaxNesting {
			return errTooMany
		}
		for len(b) > 0 {
			num, typ, m := protowire.ConsumeTag(b)
			if m < 0 {
				return nil
			}
			b = b[m:]
			if typ != protowire.BytesType {
				if m = protowire.ConsumeFieldValue(num, typ, b); m < 0 {
					return nil
				}
				b = b[m:]
				continue
			}
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return nil
			}
			b = b[m:]
			child, ok := fields[kind][num]
			if !ok {
				continue
			}
			if n++; n > MaxElements {
				return errTooMany
			}
			if err := walk(v, child, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(b, 'D', 0)
}

func hexID(b []byte) string { return hex.EncodeToString(b) }
