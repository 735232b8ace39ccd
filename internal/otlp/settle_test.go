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
	tr := r.Settle(id, time.Millisecond, time.Second, nil)
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
	tr := r.Settle(id, time.Millisecond, time.Second, nil)
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
	r.Settle(first, time.Millisecond, time.Second, nil)
	second := r.Attempt("SC-1", 2, nil)
	parent := parentOf(t, r, second, turn(1))
	trace := r.sink(second).trace
	code, _ := post(t, r, "application/x-protobuf", span(trace, parent, 1, map[string]string{"gen_ai.tool.name": "issue_refund"}),
		record.TraceTokenHeader, staleToken)
	require.Equal(t, 200, code)
	tr := r.Settle(second, time.Millisecond, time.Second, nil)
	assert.Empty(t, tr.Spans)
	assert.Equal(t, 1, tr.CrossTalk)
	assert.Contains(t, tr.Incomplete, "another attempt's token")
}
