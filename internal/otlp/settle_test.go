package otlp

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/rookgo/rookgo/internal/record"
)

// span is an export request of one span of trace under parent, with id n and the given
// string attributes.
func span(trace [16]byte, parent [8]byte, n uint32, attrs map[string]string) []byte {
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID(trace))
	sp.SetSpanID(pcommon.SpanID([8]byte{0xee, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}))
	sp.SetParentSpanID(pcommon.SpanID(parent))
	sp.SetName("execute_tool lookup")
	for k, v := range attrs {
		sp.Attributes().PutStr(k, v)
	}
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		panic(err) // a request the test built itself
	}
	return body
}

// Every span that arrives while an attempt settles is in its trace or in its late count:
// the trace is taken and the attempt settled in one step, so no span falls between them.
func TestNoSpanFallsBetweenTheTraceAndTheLateCount(t *testing.T) {
	r, id, parent := opened(t)
	trace, token := r.sink(id).trace, tokenOf(r.sink(id).trace)
	const senders, each = 4, 60
	var wg sync.WaitGroup
	started := make(chan struct{})
	for g := range senders {
		wg.Go(func() {
			for i := range each {
				if i == each/4 && g == 0 {
					close(started) // the settle starts while the others are still sending
				}
				code, _ := post(t, r, "application/x-protobuf", span(trace, parent, uint32(g*each+i), nil), record.TraceTokenHeader, token)
				assert.Equal(t, 200, code)
			}
		})
	}
	<-started
	tr := r.Settle(id, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, nil)
	wg.Wait()
	late := 0
	if l := r.Late(); len(l) == 1 {
		late = l[0].Spans
	}
	assert.Equal(t, senders*each, len(tr.Spans)+late, "%d in the trace, %d late", len(tr.Spans), late)
}

// A secret is redacted before a long value is clipped: a clip through the secret would
// otherwise keep its first part, which the redactor no longer recognises.
func TestRedactionComesBeforeTheClip(t *testing.T) {
	r, err := Start()
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	const secret = "sk-live-0123456789abcdefghij"
	id := r.Attempt("SC-1", 1, func(s string) string { return strings.ReplaceAll(s, secret, "[redacted:KEY]") })
	parent := parentOf(t, r, id, turn(1))
	trace := r.sink(id).trace
	value := strings.Repeat("a", maxValue-10) + secret + " tail"
	code, _ := post(t, r, "application/x-protobuf", span(trace, parent, 1, map[string]string{"http.request.body": value}),
		record.TraceTokenHeader, tokenOf(trace))
	require.Equal(t, 200, code)
	tr := r.Settle(id, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, nil)
	require.Len(t, tr.Spans, 1)
	got := tr.Spans[0].Attributes["http.request.body"].(string)
	assert.False(t, strings.Contains(got, secret[:10]), "no part of the secret is kept: %q", got[len(got)-40:])
	assert.True(t, strings.HasSuffix(got, "...(clipped)"), "the value is still clipped")
	assert.Equal(t, []string{"http.request.body"}, tr.Spans[0].Clipped)
}

// A span that names the attempt's trace with an earlier attempt's token (a process that
// kept it) is not taken, and the trace is not complete: it may be the agent's own, as an
// unsigned span may.
func TestAStaleTokenIsALoss(t *testing.T) {
	r, first, _ := opened(t)
	staleToken := tokenOf(r.sink(first).trace)
	r.Settle(first, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, nil)
	second := r.Attempt("SC-1", 2, nil)
	parent := parentOf(t, r, second, turn(1))
	trace := r.sink(second).trace
	code, _ := post(t, r, "application/x-protobuf", span(trace, parent, 1, map[string]string{"gen_ai.tool.name": "issue_refund"}),
		record.TraceTokenHeader, staleToken)
	require.Equal(t, 200, code)
	tr := r.Settle(second, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, nil)
	assert.Empty(t, tr.Spans)
	assert.Equal(t, 1, tr.CrossTalk)
	assert.Contains(t, tr.Incomplete, "another attempt's token")
}

// With a service that may export to the fixed address on its own schedule (Services), a
// tree made whole by the hook's own spans does not settle the trace: the service's spans
// are children of spans that already arrived, and nothing shows they are still to come.
// Once a span of the service's came (taken by its tracestate) and the tree is whole, it
// settles without waiting out the schedule.
func TestAServiceKeepsTheTraceOpenUntilItsSpansCome(t *testing.T) {
	hookRoot := func(r *Receiver, id string, parent [8]byte) {
		trace := r.sink(id).trace
		code, _ := post(t, r, "application/x-protobuf", span(trace, parent, 1, nil), record.TraceTokenHeader, tokenOf(trace))
		require.Equal(t, 200, code)
	}
	r, id, parent := opened(t)
	hookRoot(r, id, parent)
	tr := r.Settle(id, record.TraceWait{Quiet: time.Millisecond, Services: time.Minute, Most: 300 * time.Millisecond}, []record.HookCall{turn(1)})
	assert.Contains(t, tr.Incomplete, "spans were still arriving after 300ms", "the hook's closed tree did not settle it")
	require.Len(t, tr.Spans, 1)
	assert.False(t, tr.Spans[0].Propagated, "the hook's own span came with the header's token")

	r2, id2, parent2 := opened(t)
	hookRoot(r2, id2, parent2)
	settled := make(chan record.Trace, 1)
	go func() {
		settled <- r2.Settle(id2, record.TraceWait{Quiet: time.Millisecond, Services: time.Minute, Most: 2 * time.Minute}, []record.HookCall{turn(1)})
	}()
	body, err := request(r2.sink(id2).trace, [8]byte{0xee, 0, 0, 0, 1}, "execute_tool lookup_order").MarshalProto()
	require.NoError(t, err)
	code, _ := post(t, r2, "application/x-protobuf", body) // the service's: its tracestate's token
	require.Equal(t, 200, code)
	select {
	case tr = <-settled:
	case <-time.After(30 * time.Second):
		t.Fatal("the trace did not settle once the service's span came: it waited out the service's schedule")
	}
	require.Len(t, tr.Spans, 2, "settled after the service's span, not before")
	assert.True(t, tr.Spans[1].Propagated)
	assert.Empty(t, tr.Incomplete)
}
