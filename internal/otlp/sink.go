package otlp

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// Bounds on one span.
const (
	maxAttributes = 128
	maxValue      = 8 << 10
)

// Sink holds one attempt's trace.
type Sink struct {
	trace  [16]byte
	redact func(string) string

	mu      sync.Mutex
	spans   []Span
	bytes   int
	dropped int
	last    time.Time
	// parents are the harness's own spans of the attempt, by id: the parent each hook is
	// given in TRACEPARENT ("execute turn 2").
	parents map[[8]byte]string
}

// Span is one span of an attempt, as evidence/traces.json keeps it.
type Span struct {
	SpanID        string         `json:"span_id"`
	ParentSpanID  string         `json:"parent_span_id,omitempty"`
	Name          string         `json:"name"`
	Service       string         `json:"service,omitempty"`
	Start         time.Time      `json:"start"`
	End           time.Time      `json:"end"`
	Status        string         `json:"status"` // ok, error or unset
	StatusMessage string         `json:"status_message,omitempty"`
	Attributes    map[string]any `json:"attributes,omitempty"`
	// Under names the harness's span the span sits under, when its parent is one: the
	// hook call ("execute turn 2") whose TRACEPARENT the agent carried.
	Under string `json:"under,omitempty"`
}

// Trace is an attempt's trace as evidence/traces.json keeps it.
type Trace struct {
	TraceID string `json:"trace_id"`
	Spans   []Span `json:"spans"`
	// Dropped counts the spans over the bounds (MaxSpans, MaxBytes): a trace that
	// dropped any is not complete.
	Dropped int `json:"dropped"`
	// Harness lists the harness's own spans (the hook calls), which are parents and never
	// arrive: "span id = execute turn 1".
	Harness []string `json:"harness"`
	// Incomplete says why the trace cannot show that something did not happen; "" when it
	// is complete.
	Incomplete string `json:"incomplete,omitempty"`
}

// TraceID is the attempt's trace id, in hex.
func (s *Sink) TraceID() string { return hexID(s.trace[:]) }

// Traceparent is the W3C TRACEPARENT for one hook call of the attempt (label says which:
// "execute turn 2"): the attempt's trace, and a span of the harness's own as the parent.
func (s *Sink) Traceparent(label string) string {
	var id [8]byte
	_, _ = rand.Read(id[:]) // crypto/rand never fails
	s.mu.Lock()
	s.parents[id] = label
	s.mu.Unlock()
	return fmt.Sprintf("00-%s-%s-01", hexID(s.trace[:]), hexID(id[:]))
}

// add keeps one span, bounded and redacted.
func (s *Sink) add(sp ptrace.Span, service string, now time.Time) {
	out := Span{SpanID: hexID(spanBytes(sp.SpanID())), Name: s.text(sp.Name()), Service: s.text(service),
		Start: sp.StartTimestamp().AsTime().UTC(), End: sp.EndTimestamp().AsTime().UTC()}
	if p := sp.ParentSpanID(); !p.IsEmpty() {
		out.ParentSpanID = hexID(spanBytes(p))
	}
	switch sp.Status().Code() {
	case ptrace.StatusCodeError:
		out.Status = "error"
	case ptrace.StatusCodeOk:
		out.Status = "ok"
	default:
		out.Status = "unset"
	}
	out.StatusMessage = s.text(sp.Status().Message())
	size := len(out.Name) + len(out.StatusMessage)
	if sp.Attributes().Len() > 0 {
		out.Attributes = map[string]any{}
		n := 0
		sp.Attributes().Range(func(k string, v pcommon.Value) bool {
			if n == maxAttributes {
				return false
			}
			n++
			val := s.value(v)
			out.Attributes[s.text(k)] = val
			size += len(k) + len(fmt.Sprint(val))
			return true
		})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = now
	if len(s.spans) >= MaxSpans || s.bytes+size > MaxBytes {
		s.dropped++
		return
	}
	if id, ok := idOf(out.ParentSpanID); ok {
		out.Under = s.parents[id]
	}
	s.bytes += size
	s.spans = append(s.spans, out)
}

func spanBytes(id pcommon.SpanID) []byte { b := [8]byte(id); return b[:] }

func idOf(hexText string) ([8]byte, bool) {
	var id [8]byte
	b, err := hex.DecodeString(hexText)
	if err != nil || len(b) != len(id) {
		return id, false
	}
	copy(id[:], b)
	return id, true
}

// value is an attribute's value as the record keeps it: text, numbers and booleans as
// they are, a list of them likewise, anything else as its text; text clipped and redacted.
func (s *Sink) value(v pcommon.Value) any {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return s.text(v.Str())
	case pcommon.ValueTypeInt:
		return v.Int()
	case pcommon.ValueTypeDouble:
		return v.Double()
	case pcommon.ValueTypeBool:
		return v.Bool()
	case pcommon.ValueTypeSlice:
		sl := v.Slice()
		out := make([]any, 0, min(sl.Len(), maxAttributes))
		for i := 0; i < sl.Len() && i < maxAttributes; i++ {
			if e := sl.At(i); e.Type() == pcommon.ValueTypeSlice || e.Type() == pcommon.ValueTypeMap {
				out = append(out, s.text(e.AsString()))
			} else {
				out = append(out, s.value(e))
			}
		}
		return out
	}
	return s.text(v.AsString())
}

// text is a client's text as the record keeps it: valid UTF-8, at most maxValue bytes,
// redacted.
func (s *Sink) text(t string) string {
	if len(t) > maxValue {
		cut := maxValue
		for cut > 0 && !utf8.RuneStart(t[cut]) {
			cut--
		}
		t = t[:cut] + "...(clipped)"
	}
	t = strings.ToValidUTF8(t, "\uFFFD")
	if s.redact != nil {
		t = s.redact(t)
	}
	return t
}

// Quiet waits until no span of the attempt has arrived for quiet, or until most has
// passed, and says whether it was quiet.
func (s *Sink) Quiet(quiet, most time.Duration) bool {
	start := time.Now()
	for {
		s.mu.Lock()
		ref := s.last
		s.mu.Unlock()
		if ref.Before(start) {
			ref = start
		}
		if time.Since(ref) >= quiet {
			return true
		}
		if time.Since(start) >= most {
			return false
		}
		time.Sleep(min(quiet/4+time.Millisecond, 50*time.Millisecond))
	}
}

// Snapshot is the attempt's trace as it stands, with why it is not complete, if it is not:
// spans were dropped, a span names a parent that never arrived, or a hook call the agent
// was given a TRACEPARENT for (each label in expect) has no span under it.
func (s *Sink) Snapshot(expect []string) Trace {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := Trace{TraceID: hexID(s.trace[:]), Spans: append([]Span(nil), s.spans...), Dropped: s.dropped}
	known := map[string]bool{}
	for id, label := range s.parents {
		known[hexID(id[:])] = true
		t.Harness = append(t.Harness, hexID(id[:])+" = "+label)
	}
	sort.Strings(t.Harness)
	under := map[string]bool{}
	for _, sp := range t.Spans {
		known[sp.SpanID] = true
	}
	orphans := 0
	for _, sp := range t.Spans {
		if sp.ParentSpanID != "" && !known[sp.ParentSpanID] {
			orphans++
		}
		under[sp.Under] = true
	}
	var why []string
	if t.Dropped > 0 {
		why = append(why, fmt.Sprintf("%d span(s) were dropped over the bounds (%d spans, %d bytes an attempt)", t.Dropped, MaxSpans, MaxBytes))
	}
	if orphans > 0 {
		why = append(why, fmt.Sprintf("%d span(s) name a parent that never arrived", orphans))
	}
	for _, label := range expect {
		if !under[label] {
			why = append(why, fmt.Sprintf("%s exported no span", label))
		}
	}
	t.Incomplete = strings.Join(why, "; ")
	return t
}
