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
	parent, ok := idOf(r.Traceparent(id, "execute turn 1")[36:52])
	require.True(t, ok)
	return r, id, parent
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
	tr := r.Settle(id, time.Millisecond, time.Second, nil)
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
	tr := r.Settle(id, time.Millisecond, time.Second, []string{"execute turn 1"})
	require.Len(t, tr.Spans, 1, "the gzip body's span")
	assert.Equal(t, 4, tr.Refused)
	assert.Contains(t, tr.Incomplete, "4 export request(s) were refused while the attempt was open")

	// An attempt opened after the refusals is not touched by them.
	later := r.Attempt("SC-2", 1, nil)
	assert.Zero(t, r.Settle(later, time.Millisecond, time.Second, nil).Refused)
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
	tr := r.Settle(id, time.Millisecond, time.Second, []string{"execute turn 1"})
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
	code, _ := post(t, r, "application/x-protobuf", body)
	require.Equal(t, 200, code)
	tr := r.Settle(id, time.Millisecond, time.Second, nil)
	require.Len(t, tr.Spans, 1)
	got := tr.Spans[0]
	assert.Equal(t, 3, got.DroppedAttributes)
	if _, kept := got.Attributes["http.request.body"]; kept {
		assert.Equal(t, []string{"http.request.body"}, got.Clipped)
	}
}
