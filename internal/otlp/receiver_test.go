package otlp

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp" // the request as a real client builds it; only the test links it

	"github.com/rookgo/rookgo/internal/record"
)

// signing is each test trace's hook-call token, as parentOf minted it: request signs the
// spans of a trace with it (in their tracestate, as a propagated trace does).
var signing sync.Map // [16]byte -> token

// parentOf opens a hook call of the attempt (label) and returns the parent its spans name;
// the call's token signs the requests the test builds for the trace.
func parentOf(t *testing.T, r *Receiver, id string, call record.HookCall) [8]byte {
	t.Helper()
	tp, token := r.Traceparent(id, call)
	parent, ok := idOf(tp[36:52])
	require.True(t, ok, tp)
	signing.Store(r.sink(id).trace, token)
	return parent
}

// tokenOf is the token parentOf minted for trace.
func tokenOf(trace [16]byte) string {
	token, _ := signing.Load(trace)
	s, _ := token.(string)
	return s
}

// request is an export request of spans of trace, each a child of parent, named names,
// signed with the trace's token when parentOf minted one.
func request(trace [16]byte, parent [8]byte, names ...string) ptraceotlp.ExportRequest {
	token, _ := signing.Load(trace)
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
		if token != nil {
			sp.TraceState().FromRaw("vendor=x," + record.TraceStateKey + "=" + token.(string))
		}
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
	parent := parentOf(t, r, id, turn(1))

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

	tr := r.Settle(id, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, []record.HookCall{turn(1), turn(2)})
	assert.Equal(t, "execute turn 2 exported no span", tr.Incomplete)
	require.Len(t, tr.Spans, 1)
	assert.Equal(t, "execute turn 1", tr.Spans[0].Under)
	assert.Equal(t, &record.HookCall{Phase: "execute", Turn: 1, Try: 1}, tr.Spans[0].Hook)
	assert.Equal(t, "agent", tr.Spans[0].Service)
	assert.Equal(t, "token [redacted:KEY] here", tr.Spans[0].Attributes["secret.note"], "redacted as it arrives")

	// Requests refused whole: each says why, none adds a span, and those that could have
	// held spans count against the attempts open then.
	open := r.Attempt("SC-2", 1, nil)
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
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, c.want, resp.StatusCode, "%s %s", c.method, c.path)
		assert.NotEmpty(t, strings.TrimSpace(string(msg)), "%s %s: a refusal says why", c.method, c.path)
	}
	refused := r.Settle(open, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, nil)
	assert.Empty(t, refused.Spans)
	assert.Equal(t, 2, refused.Refused, "the bad protobuf and the body over the bound")
	assert.Contains(t, refused.Incomplete, "2 export request(s) were refused while the attempt was open")
	assert.Equal(t, 1, r.Stray(), "nothing of the refused requests was taken as a span")
}

// An attempt keeps at most MaxSpans spans; the rest are dropped and the trace says so.
func TestSpansOverTheBoundAreDropped(t *testing.T) {
	r, err := Start()
	require.NoError(t, err)
	defer r.Close()
	id := r.Attempt("SC-1", 1, nil)
	s := r.sink(id)
	parent := parentOf(t, r, id, turn(1))
	names := make([]string, MaxSpans+5)
	for i := range names {
		names[i] = "t"
	}
	body, err := request(s.trace, parent, names...).MarshalProto()
	require.NoError(t, err)
	resp, err := http.Post(r.Endpoint()+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
	require.NoError(t, err)
	resp.Body.Close()
	tr := r.Settle(id, record.TraceWait{Quiet: time.Millisecond, Most: time.Second}, nil)
	assert.Len(t, tr.Spans, MaxSpans)
	assert.Equal(t, 5, tr.Dropped)
	assert.Contains(t, tr.Incomplete, "5 span(s) were dropped over the bounds")
}

// A client that sends its headers and then trickles its body is cut off once the read
// timeout has passed: a connection cannot be held open by sending slowly.
func TestATricklingClientIsCutOff(t *testing.T) {
	r, err := start("127.0.0.1:0", 300*time.Millisecond)
	require.NoError(t, err)
	defer r.Close()
	conn, err := net.Dial("tcp", strings.TrimPrefix(r.Endpoint(), "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\nContent-Length: 100000\r\n\r\n0123456789")
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second))) // a bound on the test, not what it waits for
	_, err = io.ReadAll(conn)                                                // until the receiver closes the connection
	require.NoError(t, err, "the receiver closed the connection before the test's own bound")
	assert.GreaterOrEqual(t, time.Since(start), 250*time.Millisecond)
}

// turn is execute turn n's first try.
func turn(n int) record.HookCall { return record.HookCall{Phase: "execute", Turn: n, Try: 1} }
