package otlp

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/rookgo/rookgo/internal/record"
)

func post(t *testing.T, r *Receiver, ctype string, body []byte, header ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest("POST", r.Endpoint()+"/v1/traces", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", ctype)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func opened(t *testing.T) (*Receiver, string, [8]byte) {
	t.Helper()
	r, err := Start()
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	id := r.Attempt("SC-1", 1, nil)
	return r, id, parentOf(t, r, id, turn(1))
}

// The same span exported twice (a retrying exporter) is kept once and counted.
func TestASpanSentTwiceIsKeptOnce(t *testing.T) {
	r, id, parent := opened(t)
	body, err := request(r.sink(id).trace, parent, "issue_refund").MarshalProto()
	require.NoError(t, err)
	for range 2 {
		code, _ := post(t, r, "application/x-protobuf", body)
		require.Equal(t, 200, code)
	}
	tr := r.Settle(id, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, nil)
	assert.Len(t, tr.Spans, 1)
	assert.Equal(t, 1, tr.Duplicates)
}

// A request refused whole (too large, undecodable, a body that does not inflate, over the
// element bound) makes every attempt open while it came incomplete: its spans could have
// been theirs. A gzip body that inflates is read.
func TestRefusedRequestsMakeOpenTracesIncomplete(t *testing.T) {
	r, id, parent := opened(t)
	good, err := request(r.sink(id).trace, parent, "lookup_order").MarshalProto()
	require.NoError(t, err)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(good)
	require.NoError(t, zw.Close())
	code, _ := post(t, r, "application/x-protobuf", zipped.Bytes(), "Content-Encoding", "gzip")
	assert.Equal(t, 200, code, "gzip is read")

	for _, c := range []struct {
		body   []byte
		header []string
		want   int
	}{
		{make([]byte, MaxBody+1), nil, http.StatusRequestEntityTooLarge},
		{[]byte("not protobuf at all \xff\xff"), nil, http.StatusBadRequest},
		{[]byte("not gzip"), []string{"Content-Encoding", "gzip"}, http.StatusBadRequest},
		{good, []string{"Content-Encoding", "br"}, http.StatusBadRequest},
	} {
		code, _ := post(t, r, "application/x-protobuf", c.body, c.header...)
		assert.Equal(t, c.want, code)
	}
	tr := r.Settle(id, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, []record.HookCall{turn(1)})
	require.Len(t, tr.Spans, 1, "the gzip body's span")
	assert.Equal(t, 4, tr.Refused)
	assert.Contains(t, tr.Incomplete, "4 export request(s) were refused while the attempt was open")

	// An attempt opened after the refusals is not touched by them.
	later := r.Attempt("SC-2", 1, nil)
	assert.Zero(t, r.Settle(later, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, nil).Refused)
}

// A small body of many empty spans would decode into hundreds of megabytes: it is refused
// before it is decoded, protobuf and JSON alike, and so is JSON nested deeper than the bound.
func TestElementBounds(t *testing.T) {
	r, id, parent := opened(t)
	td := ptrace.NewTraces()
	spans := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for range MaxElements + 1 {
		spans.AppendEmpty()
	}
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	require.NoError(t, err)
	require.Less(t, len(body), MaxBody, "small on the wire")
	code, msg := post(t, r, "application/x-protobuf", body)
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)
	assert.Contains(t, string(msg), "elements")
	deep := `{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"k","value":` + strings.Repeat(`{"arrayValue":{"values":[`, 100) + strings.Repeat(`]}}`, 100) + `}]}]}]}]}`
	code, _ = post(t, r, "application/json", []byte(deep))
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)
	// A brace inside a string is text, not nesting.
	ok, err := request(r.sink(id).trace, parent, strings.Repeat("{", 200)).MarshalJSON()
	require.NoError(t, err)
	code, _ = post(t, r, "application/json", ok)
	assert.Equal(t, 200, code)
}

// Spans over an attempt's bounds are answered as OTLP's partial success, so the exporter
// knows, and the trace says it dropped them.
func TestPartialSuccessNamesRejectedSpans(t *testing.T) {
	r, id, parent := opened(t)
	names := make([]string, MaxSpans+3)
	for i := range names {
		names[i] = "t"
	}
	req := request(r.sink(id).trace, parent, names...)
	body, err := req.MarshalProto()
	require.NoError(t, err)
	code, out := post(t, r, "application/x-protobuf", body)
	require.Equal(t, 200, code)
	resp := ptraceotlp.NewExportResponse()
	require.NoError(t, resp.UnmarshalProto(out))
	assert.Equal(t, int64(3), resp.PartialSuccess().RejectedSpans())
	assert.Contains(t, resp.PartialSuccess().ErrorMessage(), "not kept")

	more := request(r.sink(id).trace, parent, "one more")
	more.Traces().ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).SetSpanID(pcommon.SpanID([8]byte{9, 9}))
	jbody, err := more.MarshalJSON()
	require.NoError(t, err)
	code, out = post(t, r, "application/json", jbody)
	require.Equal(t, 200, code)
	jresp := ptraceotlp.NewExportResponse()
	require.NoError(t, jresp.UnmarshalJSON(out))
	assert.Equal(t, int64(1), jresp.PartialSuccess().RejectedSpans())
}

// Spans that arrive after their attempt was settled are late: counted, named, and the
// tool calls among them listed, never dropped unseen.
func TestLateSpansAreCounted(t *testing.T) {
	r, id, parent := opened(t)
	tr := r.Settle(id, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, []record.HookCall{turn(1)})
	assert.Contains(t, tr.Incomplete, "execute turn 1 exported no span")
	body, err := request(r.sink(id).trace, parent, "issue_refund").MarshalProto()
	require.NoError(t, err)
	for range 2 { // sent twice, late once
		code, _ := post(t, r, "application/x-protobuf", body)
		require.Equal(t, 200, code)
	}
	late := r.Late()
	require.Len(t, late, 1)
	assert.Equal(t, "SC-1", late[0].ScenarioID)
	assert.Equal(t, 1, late[0].Spans)
	assert.Equal(t, []string{"issue_refund"}, late[0].Tools)
	require.Len(t, late[0].Kept, 1, "kept whole, for the attempt to be decided again with it")
	assert.Equal(t, "issue_refund", late[0].Kept[0].Name)
	assert.Equal(t, "execute turn 1", late[0].Kept[0].Under)
	assert.Zero(t, r.Stray(), "a late span is not stray")
}

// A value over the bound is clipped and an attribute past the count dropped: the span
// says which, so that what decides on them knows it is not whole.
func TestClippedAndDroppedAttributesAreNamed(t *testing.T) {
	r, id, parent := opened(t)
	td := ptrace.NewTraces()
	sp := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	sp.SetTraceID(pcommon.TraceID(r.sink(id).trace))
	sp.SetSpanID(pcommon.SpanID([8]byte{7}))
	sp.SetParentSpanID(pcommon.SpanID(parent))
	sp.SetName("fetch")
	sp.Attributes().PutStr("http.request.body", strings.Repeat("a", maxValue+10))
	for i := range maxAttributes + 2 {
		sp.Attributes().PutInt("n"+strings.Repeat("x", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26)), int64(i))
	}
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	require.NoError(t, err)
	code, _ := post(t, r, "application/x-protobuf", body, record.TraceTokenHeader, tokenOf(r.sink(id).trace)) // signed as an SDK does, in the header
	require.Equal(t, 200, code)
	tr := r.Settle(id, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, nil)
	require.Len(t, tr.Spans, 1)
	got := tr.Spans[0]
	assert.Equal(t, 3, got.DroppedAttributes)
	if _, kept := got.Attributes["http.request.body"]; kept {
		assert.Equal(t, []string{"http.request.body"}, got.Clipped)
	}
}

// A span is taken into an attempt only with one of its hook calls' tokens. Another
// attempt's hook that learnt this one's TRACEPARENT and exports with its own token is
// cross-talk: kept by neither, a loss to the trace it named, none to B's. One with no token at all (the header
// left out, no tracestate) may be the agent's own: it is not taken, and the trace is not
// complete. A token no hook was given signs nothing.
func TestSpansAreTakenOnlyWithTheAttemptsToken(t *testing.T) {
	r, a, parentA := opened(t)
	b := r.Attempt("SC-2", 1, nil)
	parentOf(t, r, b, turn(1))
	traceA, traceB := r.sink(a).trace, r.sink(b).trace

	forged := request(traceA, parentA, "issue_refund")
	unsigned(forged)
	body, err := forged.MarshalProto()
	require.NoError(t, err)
	code, _ := post(t, r, "application/x-protobuf", body, record.TraceTokenHeader, tokenOf(traceB)) // B's own exporter
	require.Equal(t, 200, code)
	code, _ = post(t, r, "application/x-protobuf", body, record.TraceTokenHeader, "0123456789abcdef0123456789abcdef")
	require.Equal(t, 200, code)
	code, _ = post(t, r, "application/x-protobuf", body) // no token at all
	require.Equal(t, 200, code)
	ownBody, err := request(traceA, parentA, "lookup_order").MarshalProto() // A's own, signed in its tracestate
	require.NoError(t, err)
	code, _ = post(t, r, "application/x-protobuf", ownBody)
	require.Equal(t, 200, code)

	ta := r.Settle(a, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, []record.HookCall{turn(1)})
	require.Len(t, ta.Spans, 1, "only A's own span")
	assert.Equal(t, "lookup_order", ta.Spans[0].Name)
	assert.Equal(t, 1, ta.CrossTalk, "B's exporter's span")
	assert.Equal(t, 2, ta.Unsigned, "the unknown token's and the tokenless one")
	assert.Contains(t, ta.Incomplete, "2 span(s) named this trace with no hook call's token")
	tb := r.Settle(b, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, nil)
	assert.Empty(t, tb.Spans)
	assert.Equal(t, 1, tb.Foreign)
	assert.Empty(t, tb.Incomplete, "cross-talk costs B nothing")
}

// unsigned takes the tracestate off every span of req.
func unsigned(req ptraceotlp.ExportRequest) {
	rss := req.Traces().ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				spans.At(k).TraceState().FromRaw("")
			}
		}
	}
}

// A trace whose tree is closed (every execute turn has its root, no span names a parent
// that has not arrived) settles after a short grace, not the quiet window; one still open
// waits the whole window for what may yet come.
func TestAClosedTreeSettlesAfterAGrace(t *testing.T) {
	r, id, parent := opened(t)
	body, err := request(r.sink(id).trace, parent, "invoke_agent").MarshalProto()
	require.NoError(t, err)
	code, _ := post(t, r, "application/x-protobuf", body)
	require.Equal(t, 200, code)
	start := time.Now()
	tr := r.Settle(id, record.TraceWait{Quiet: 10 * time.Second, Most: 20 * time.Second}, []record.HookCall{turn(1)})
	assert.Less(t, time.Since(start), 5*time.Second, "closed: it did not wait the 10 s window")
	assert.Empty(t, tr.Incomplete)

	r2, id2, parent2 := opened(t)
	parentOf(t, r2, id2, turn(2)) // a second turn, which exports nothing
	body, err = request(r2.sink(id2).trace, parent2, "invoke_agent").MarshalProto()
	require.NoError(t, err)
	code, _ = post(t, r2, "application/x-protobuf", body)
	require.Equal(t, 200, code)
	start = time.Now()
	tr = r2.Settle(id2, record.TraceWait{Quiet: 300 * time.Millisecond, Most: 20 * time.Second}, []record.HookCall{turn(1), turn(2)})
	assert.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond, "open: it waited the window")
	assert.Contains(t, tr.Incomplete, "execute turn 2 exported no span")
}
