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

	"github.com/rookgo/rookgo/internal/record"
)

// Bounds on one span.
const (
	maxAttributes = 128
	maxValue      = 8 << 10
	// maxLateNames bounds the late spans' names an attempt keeps.
	maxLateNames = 10
)

// Sink holds one attempt's trace.
type Sink struct {
	trace    [16]byte
	redact   func(string) string
	scenario string
	attempt  int
	// refusedAtOpen is the receiver's count of refused requests when the attempt opened:
	// those refused since may have held its spans.
	refusedAtOpen int

	mu         sync.Mutex
	spans      []record.Span
	seen       map[[8]byte]bool
	bytes      int
	dropped    int
	duplicates int
	// arrived is when the latest span came, for a settle waiting for quiet.
	arrived arrivals
	// parents are the harness's own spans of the attempt, by id: the parent each hook call
	// is given in TRACEPARENT.
	parents map[[8]byte]record.HookCall
	// propagated counts the spans taken by their tracestate's token: sent by a process
	// without the hook's environment (a service).
	propagated int
	// settled is set once the trace is recorded: what arrives after is late, kept whole
	// in late.Kept up to the bounds (lateBytes).
	settled   bool
	late      record.LateSpans
	lateBytes int
	// tokens are the hook calls' tokens (token.go); unsigned, crossTalk and foreign count
	// the spans not taken for them.
	tokens                       map[string]bool
	unsigned, crossTalk, foreign int
}

// TraceID is the attempt's trace id, in hex.
func (s *Sink) TraceID() string { return hexID(s.trace[:]) }

// Traceparent is the W3C TRACEPARENT for one hook call of the attempt: the attempt's
// trace, and a span of the harness's own as the parent. token is the call's own,
// unguessable: a span is taken into the attempt only with one of its calls' tokens.
func (s *Sink) Traceparent(call record.HookCall) (traceparent, token string) {
	var id [8]byte
	var tok [16]byte
	_, _ = rand.Read(id[:]) // crypto/rand never fails
	_, _ = rand.Read(tok[:])
	token = hex.EncodeToString(tok[:])
	s.mu.Lock()
	s.parents[id] = call
	s.tokens[token] = true
	s.mu.Unlock()
	return fmt.Sprintf("00-%s-%s-01", hexID(s.trace[:]), hexID(id[:])), token
}

// add keeps one span, bounded and redacted, once: a span that arrives again (a retrying
// exporter) is counted, not kept twice. propagated says it was signed by its tracestate
// (a process without the hook's environment sent it). It reports whether the span was kept.
func (s *Sink) add(sp ptrace.Span, service string, propagated bool, now time.Time) bool {
	id := [8]byte(sp.SpanID())
	out := record.Span{SpanID: hexID(id[:]), Service: s.text(service, nil), Propagated: propagated,
		Start: sp.StartTimestamp().AsTime().UTC(), End: sp.EndTimestamp().AsTime().UTC()}
	var clipped bool
	out.Name = s.text(sp.Name(), &clipped)
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
	out.StatusMessage = s.text(sp.Status().Message(), nil)
	size := len(out.Name) + len(out.StatusMessage)
	if n := sp.Attributes().Len(); n > 0 {
		out.Attributes = map[string]any{}
		out.DroppedAttributes = max(0, n-maxAttributes) + int(sp.DroppedAttributesCount())
		i := 0
		sp.Attributes().Range(func(k string, v pcommon.Value) bool {
			if i == maxAttributes {
				return false
			}
			i++
			var cut bool
			val := s.value(v, &cut)
			key := s.text(k, nil)
			out.Attributes[key] = val
			if cut {
				out.Clipped = append(out.Clipped, key)
			}
			size += len(k) + len(fmt.Sprint(val))
			return true
		})
		sort.Strings(out.Clipped)
	} else if d := sp.DroppedAttributesCount(); d > 0 {
		out.DroppedAttributes = int(d)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrived.arrive(now)
	if pid, ok := idOf(out.ParentSpanID); ok {
		if call, ok := s.parents[pid]; ok {
			out.Hook, out.Under = &call, call.String()
		}
	}
	if s.settled {
		s.lateSpan(out, size)
		return true
	}
	if s.seen[id] {
		s.duplicates++
		return true
	}
	if len(s.spans) >= MaxSpans || s.bytes+size > MaxBytes {
		s.dropped++
		return false
	}
	s.seen[id] = true
	if propagated {
		s.propagated++
	}
	s.bytes += size
	s.spans = append(s.spans, out)
	return true
}

// lateSpan counts a span that arrived after the attempt was settled, and keeps it whole
// within the same bounds as the trace's, so that the attempt can be decided again with it;
// s.mu is held.
func (s *Sink) lateSpan(sp record.Span, size int) {
	id, _ := idOf(sp.SpanID)
	if s.seen[id] {
		return // the same span again, already in the record
	}
	s.seen[id] = true
	s.late.Spans++
	if len(s.late.Names) < maxLateNames {
		s.late.Names = append(s.late.Names, sp.Name)
	}
	if c, ok := sp.ToolName(); ok && len(s.late.Tools) < maxLateNames {
		s.late.Tools = append(s.late.Tools, c)
	}
	if len(s.late.Kept) >= MaxSpans || s.lateBytes+size > MaxBytes {
		s.late.Dropped++
		return
	}
	s.lateBytes += size
	s.late.Kept = append(s.late.Kept, sp)
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
// cut is set when any of it was clipped or left out.
func (s *Sink) value(v pcommon.Value, cut *bool) any {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return s.text(v.Str(), cut)
	case pcommon.ValueTypeInt:
		return v.Int()
	case pcommon.ValueTypeDouble:
		return v.Double()
	case pcommon.ValueTypeBool:
		return v.Bool()
	case pcommon.ValueTypeSlice:
		sl := v.Slice()
		if sl.Len() > maxAttributes {
			*cut = true
		}
		out := make([]any, 0, min(sl.Len(), maxAttributes))
		for i := 0; i < sl.Len() && i < maxAttributes; i++ {
			if e := sl.At(i); e.Type() == pcommon.ValueTypeSlice || e.Type() == pcommon.ValueTypeMap {
				out = append(out, s.text(e.AsString(), cut))
			} else {
				out = append(out, s.value(e, cut))
			}
		}
		return out
	}
	return s.text(v.AsString(), cut)
}

// text is a client's text as the record keeps it: valid UTF-8, redacted, then at most
// maxValue bytes; cut, when given, is set when it was clipped. Redaction comes first, so
// that a clip through a secret cannot leave its first part unrecognised in the record.
func (s *Sink) text(t string, cut *bool) string {
	t = strings.ToValidUTF8(t, "\uFFFD")
	if s.redact != nil {
		t = s.redact(t)
	}
	if len(t) > maxValue {
		n := maxValue
		for n > 0 && !utf8.RuneStart(t[n]) {
			n--
		}
		t = t[:n] + "...(clipped)"
		if cut != nil {
			*cut = true
		}
	}
	return t
}

// settleGrace is how long a trace whose tree is closed (closed) waits for a span still
// on its way. An agent that exports before it replies has sent everything by the time its
// hook exits: with the Go SDK's simple and batch processors, flushed before the reply, the
// last span arrived at least 0.6 ms before the exit was seen (BenchmarkExportDelay, 60
// runs of each, in two sessions); the receiver takes a request's spans before it answers it. One that does not
// flush keeps its tree open, and the full quiet window.
const settleGrace = time.Millisecond

// quiet waits until the attempt's spans have settled, or until w.Most has passed, and says
// whether they settled. The hooks' own processes have sent everything once the tree is
// closed (every label of expect has its root, and no span names a parent that has not
// arrived): then it waits settleGrace, else until no span has come for w.Quiet. A process
// that is not the hooks' (w.Services > 0: a service on a fixed address) exports on a
// schedule of its own, and its spans are children of spans that already arrived, so a
// closed tree says nothing of them: the trace waits until no span has come for
// w.Services, unless such a process has already sent spans and the tree is closed.
func (s *Sink) quiet(w record.TraceWait, expect []record.HookCall) bool {
	return waitQuiet(w.Most, func() (time.Time, <-chan struct{}, time.Duration) {
		s.mu.Lock()
		defer s.mu.Unlock()
		last, next := s.arrived.watch()
		closed := s.closed(expect)
		switch {
		case w.Services > 0 && !(closed && s.propagated > 0):
			return last, next, max(w.Services, w.Quiet)
		case closed:
			return last, next, min(w.Quiet, settleGrace)
		}
		return last, next, w.Quiet
	})
}

// closed says whether the trace's tree is whole as far as can be seen: each hook call of
// expect (every try of every execute turn) has a root span under it, and every span's
// parent is a span that arrived or a harness span. An attempt that expects no call has
// nothing it could check, so its tree is never closed. s.mu is held.
func (s *Sink) closed(expect []record.HookCall) bool {
	if len(expect) == 0 {
		return false
	}
	known := map[string]bool{}
	under := map[record.HookCall]bool{}
	for _, sp := range s.spans {
		known[sp.SpanID] = true
		if sp.Hook != nil {
			under[*sp.Hook] = true
		}
	}
	for _, call := range expect {
		if !under[call] {
			return false
		}
	}
	for _, sp := range s.spans {
		if sp.ParentSpanID == "" || known[sp.ParentSpanID] {
			continue
		}
		if id, ok := idOf(sp.ParentSpanID); !ok || !s.hasParent(id) {
			return false
		}
	}
	return true
}

func (s *Sink) hasParent(id [8]byte) bool {
	_, ok := s.parents[id]
	return ok
}

// record is the attempt's trace, with why it is not complete, if it is not: spans were
// dropped, export requests were refused while it was open, a span named the trace with no
// token or with another attempt's, a span names a parent that never arrived, or a hook
// call the agent was given a TRACEPARENT for (each of expect) has no span under it.
// refused is how many requests were refused since the attempt opened. In the same step,
// under the same lock, the trace is settled: its spans are let go, and any that arrive
// from now on are late, so that no span is in neither the trace nor the late count.
func (s *Sink) record(expect []record.HookCall, refused int) record.Trace {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := record.Trace{TraceID: hexID(s.trace[:]), Spans: s.spans, Dropped: s.dropped,
		Duplicates: s.duplicates, Refused: refused, Unsigned: s.unsigned, CrossTalk: s.crossTalk, Foreign: s.foreign}
	if t.Spans == nil {
		t.Spans = []record.Span{}
	}
	s.settled, s.spans, s.bytes = true, nil, 0
	known := map[string]bool{}
	for id, call := range s.parents {
		known[hexID(id[:])] = true
		t.Harness = append(t.Harness, hexID(id[:])+" = "+call.String())
	}
	sort.Strings(t.Harness)
	under := map[record.HookCall]bool{}
	for _, sp := range t.Spans {
		known[sp.SpanID] = true
	}
	orphans := 0
	for _, sp := range t.Spans {
		if sp.ParentSpanID != "" && !known[sp.ParentSpanID] {
			orphans++
		}
		if sp.Hook != nil {
			under[*sp.Hook] = true
		}
	}
	var why []string
	if t.Dropped > 0 {
		why = append(why, fmt.Sprintf("%d span(s) were dropped over the bounds (%d spans, %d bytes an attempt)", t.Dropped, MaxSpans, MaxBytes))
	}
	if refused > 0 {
		why = append(why, fmt.Sprintf("%d export request(s) were refused while the attempt was open, and their spans are in no record", refused))
	}
	if s.unsigned > 0 {
		why = append(why, fmt.Sprintf("%d span(s) named this trace with no hook call's token (the %s header from OTEL_EXPORTER_OTLP_HEADERS, or %s= in the span's tracestate), and are not its evidence: another process's, or the agent's own sent without the token",
			s.unsigned, record.TraceTokenHeader, record.TraceStateKey))
	}
	if s.crossTalk > 0 {
		why = append(why, fmt.Sprintf("%d span(s) named this trace with another attempt's token, and are not its evidence: another attempt's process, or the agent's own sent with a token it kept from an earlier call",
			s.crossTalk))
	}
	if orphans > 0 {
		why = append(why, fmt.Sprintf("%d span(s) name a parent that never arrived", orphans))
	}
	for _, call := range expect {
		if !under[call] {
			why = append(why, fmt.Sprintf("%s exported no span", call))
		}
	}
	t.Incomplete = strings.Join(why, "; ")
	return t
}

// lateSpans is what arrived after the trace was settled; ok is false when nothing did.
func (s *Sink) lateSpans() (record.LateSpans, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.late
	l.ScenarioID, l.Attempt = s.scenario, s.attempt
	l.Names, l.Tools = append([]string(nil), l.Names...), append([]string(nil), l.Tools...)
	l.Kept = append([]record.Span(nil), l.Kept...)
	return l, l.Spans > 0
}
