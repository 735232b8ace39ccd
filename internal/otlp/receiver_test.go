package otlp

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp" // the request as a real client builds it; only the test links it
)

// request is an export request of spans of trace, each a child of parent, named names.
func request(trace [16]byte, parent [8]byte, names ...string) ptraceotlp.ExportRequest {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "agent")
	ss := rs.ScopeSpans().AppendEmpty()
	for i, name := range names {
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID(trace))
		sp.SetSpanID(pcommon.SpanID([8]byte{1, byte((i + 1) >> 8), byte(i + 1)}))
		sp.SetParentSpanID(pcommon.SpanID(parent))
		sp.SetName(name)
		sp.Attributes().PutStr("gen_ai.tool.name", name)
		sp.Attributes().PutStr("secret.note", "token sk-123456 here")
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(time.Now()))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	}
	return ptraceotlp.NewExportRequestFromTraces(td)
}

func TestReceiver(t *testing.T) {
	r, err := Start()
	require.NoError(t, err)
	defer r.Close()
	id := r.Attempt("SC-1", 1, func(t string) string { return strings.ReplaceAll(t, "sk-123456", "[redacted:KEY]") })
	s := r.sink(id)
	tp := r.Traceparent(id, "execute turn 1")
	parent, ok := idOf(tp[36:52])
	require.True(t, ok, tp)

	// OTLP JSON, as the JS SDK's http/json exporter sends it.
	body, err := request(s.trace, parent, "lookup_order").MarshalJSON()
	require.NoError(t, err)
	resp, err := http.Post(r.Endpoint()+"/v1/traces", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))

	// A span of no attempt's trace is counted and dropped.
	stray, err := request([16]byte{9}, parent, "elsewhere").MarshalProto()
	require.NoError(t, err)
	resp, err = http.Post(r.Endpoint()+"/v1/traces", "application/x-protobuf", bytes.NewReader(stray))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 1, r.Stray())

	assert.Equal(t, "execute turn 2 exported no span", s.snapshot([]string{"execute turn 1", "execute turn 2"}, 0).Incomplete)
	tr := r.Settle(id, time.Millisecond, time.Second, []string{"execute turn 1"})
	require.Len(t, tr.Spans, 1)
	assert.Equal(t, "execute turn 1", tr.Spans[0].Under)
	assert.Equal(t, "agent", tr.Spans[0].Service)
	assert.Equal(t, "token [redacted:KEY] here", tr.Spans[0].Attributes["secret.note"], "redacted as it arrives")
	assert.Empty(t, tr.Incomplete)

	for _, c := range []struct {
		method, path, ctype string
		body                []byte
		want                int
	}{
		{"GET", "/v1/traces", "", nil, http.StatusMethodNotAllowed},
		{"POST", "/v1/metrics", "application/x-protobuf", stray, http.StatusNotFound},
		{"POST", "/v1/traces", "application/x-protobuf", []byte("not protobuf at all \xff\xff"), http.StatusBadRequest},
		{"POST", "/v1/traces", "application/x-protobuf", make([]byte, MaxBody+1), http.StatusRequestEntityTooLarge},
	} {
		req, err := http.NewRequest(c.method, r.Endpoint()+c.path, bytes.NewReader(c.body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", c.ctype)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, c.want, resp.StatusCode, "%s %s", c.method, c.path)
	}
}

// An attempt keeps at most MaxSpans spans; the rest are dropped and the trace says so.
func TestSpansOverTheBoundAreDropped(t *testing.T) {
	r, err := Start()
	require.NoError(t, err)
	defer r.Close()
	id := r.Attempt("SC-1", 1, nil)
	s := r.sink(id)
	parent, _ := idOf(r.Traceparent(id, "execute turn 1")[36:52])
	names := make([]string, MaxSpans+5)
	for i := range names {
		names[i] = "t"
	}
	body, err := request(s.trace, parent, names...).MarshalProto()
	require.NoError(t, err)
	resp, err := http.Post(r.Endpoint()+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
	require.NoError(t, err)
	resp.Body.Close()
	tr := r.Settle(id, time.Millisecond, time.Second, nil)
	assert.Len(t, tr.Spans, MaxSpans)
	assert.Equal(t, 5, tr.Dropped)
	assert.Contains(t, tr.Incomplete, "5 span(s) were dropped over the bounds")
}
