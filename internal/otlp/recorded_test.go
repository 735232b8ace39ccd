package otlp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// recSpec is one span of a recorded conversation, for conversationFile.
type recSpec struct {
	trace, id, parent byte
	name              string
	start             int
	attrs             map[string]string
}

// conversationFile writes spans as one OTLP JSON export request a line, as the
// collector's file exporter does, and returns the folder.
func conversationFile(t *testing.T, spans ...recSpec) string {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	for _, s := range spans {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr("service.name", "support")
		sp := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{s.trace, 1})
		sp.SetSpanID(pcommon.SpanID{s.trace, s.id})
		if s.parent != 0 {
			sp.SetParentSpanID(pcommon.SpanID{s.trace, s.parent})
		}
		sp.SetName(s.name)
		base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(s.start) * time.Second)
		sp.SetStartTimestamp(pcommon.NewTimestampFromTime(base))
		sp.SetEndTimestamp(pcommon.NewTimestampFromTime(base.Add(250 * time.Millisecond)))
		for k, v := range s.attrs {
			sp.Attributes().PutStr(k, v)
		}
		line, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		require.NoError(t, err)
		lines = append(lines, string(line))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "export.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return dir
}

func turnAttrs(conv, reply string) map[string]string {
	a := map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": conv}
	if reply != "" {
		b, _ := json.Marshal([]map[string]any{{"role": "assistant", "parts": []map[string]string{{"type": "text", "content": reply}}}})
		a["gen_ai.output.messages"] = string(b)
	}
	return a
}

func toolAttrs(name, args string) map[string]string {
	return map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.arguments": args}
}

// replayTurn runs turn n of scenario sc's replay as the run would: a hook call of an
// attempt of a real receiver, its environment, and the trace settled after.
func replayTurn(t *testing.T, dir string, sc string, turns int) ([]hook.Reply, []error, record.Trace) {
	t.Helper()
	r, err := Start()
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	agent, err := NewReplay(&spec.Profile{Recorded: &spec.Recorded{Dir: dir, Match: spec.DefaultMatch}})
	require.NoError(t, err)
	trace := r.Attempt(sc, 1, func(s string) string { return s })
	var replies []hook.Reply
	var errs []error
	var expect []record.HookCall
	for n := 1; n <= turns; n++ {
		call := record.HookCall{Phase: "execute", Turn: n, Try: 1}
		expect = append(expect, call)
		tp, token := r.Traceparent(trace, call)
		env := []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + r.Endpoint() + "/v1/traces", "TRACEPARENT=" + tp,
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS=" + strings.ToLower(record.TraceTokenHeader) + "=" + token}
		reply, err := agent.Execute(t.Context(), hook.Call{Phase: "execute", Scenario: sc, Turn: n, Env: env})
		replies, errs = append(replies, reply), append(errs, err)
	}
	return replies, errs, r.Settle(trace, record.TraceWait{Quiet: 50 * time.Millisecond, Most: 5 * time.Second}, expect)
}

// A recorded conversation replays turn by turn: each invoke_agent span with no
// invoke_agent above it is a turn, in the order the turns started, its subtree (an agent
// it invoked included) under the turn's call; the rest is the session's, sent once; the
// reply is the assistant's text in gen_ai.output.messages, the latency the span's.
func TestARecordedConversationReplaysTurnByTurn(t *testing.T) {
	dir := conversationFile(t,
		// Turn 2 is written first: order is by start time.
		recSpec{trace: 2, id: 1, name: "invoke_agent support", start: 10, attrs: turnAttrs("conv-7", "It has shipped.")},
		recSpec{trace: 2, id: 2, parent: 1, name: "invoke_agent billing", start: 11, attrs: turnAttrs("conv-7", "inner")},
		recSpec{trace: 2, id: 3, parent: 2, name: "execute_tool refund", start: 12, attrs: toolAttrs("refund", `{"order":"A"}`)},
		recSpec{trace: 1, id: 9, name: "POST /chat", start: 0, attrs: map[string]string{"http.request.method": "POST"}},
		recSpec{trace: 1, id: 1, parent: 9, name: "invoke_agent support", start: 1, attrs: turnAttrs("conv-7", "Which order?")},
		recSpec{trace: 1, id: 2, parent: 1, name: "execute_tool lookup", start: 2, attrs: toolAttrs("lookup", `{}`)},
		recSpec{trace: 3, id: 1, name: "invoke_agent support", start: 20, attrs: turnAttrs("conv-other", "not ours")},
	)
	replies, errs, tr := replayTurn(t, dir, "conv-7", 3)
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.Equal(t, "Which order?", replies[0].Output)
	assert.Equal(t, "It has shipped.", replies[1].Output, "the outer turn's reply, not the agent it invoked")
	require.NotNil(t, replies[0].LatencyMs)
	assert.Equal(t, int64(250), *replies[0].LatencyMs)
	assert.Equal(t, "conv-7", replies[0].Conversation)
	require.Error(t, errs[2])
	assert.Contains(t, errs[2].Error(), `the recorded conversation gen_ai.conversation.id = "conv-7" has 2 turn(s) (invoke_agent spans), and the scenario's turn 3 has none`)

	under := map[string]string{}
	for _, sp := range tr.Spans {
		under[sp.Name+" "+sp.SpanID[:4]] = sp.Under
	}
	assert.Equal(t, map[string]string{
		"invoke_agent support 0101": "execute turn 1", "execute_tool lookup 0102": "",
		"POST /chat 0109":           "", // the session's: no turn holds it
		"invoke_agent support 0201": "execute turn 2", "invoke_agent billing 0202": "", "execute_tool refund 0203": "",
	}, under, "only each turn's own span is a call's child; the others keep their recorded parents")
	assert.Contains(t, tr.Incomplete, "execute turn 3 exported no span", "the turn with no recorded counterpart is a gap")
}

// A turn whose span recorded no reply (message content off, the conventions' default)
// replies that it did not see one; a conversation that is not in the files, or a file
// that is not OTLP JSON, is an error naming what was looked for, or the file and line.
func TestARecordedConversationSaysWhatItLacks(t *testing.T) {
	dir := conversationFile(t, recSpec{trace: 1, id: 1, name: "invoke_agent support", attrs: turnAttrs("conv-1", "")})
	replies, errs, tr := replayTurn(t, dir, "conv-1", 1)
	require.NoError(t, errs[0])
	assert.Empty(t, replies[0].Output)
	assert.Contains(t, replies[0].ReplyUnobserved, "holds no reply (gen_ai.output.messages or gen_ai.completion)")
	assert.Empty(t, tr.Incomplete)

	_, errs, _ = replayTurn(t, dir, "SC-404", 1)
	require.Error(t, errs[0])
	assert.Contains(t, errs[0].Error(), `no recorded trace in `+dir+` has gen_ai.conversation.id = "SC-404" (1 span(s) in 1 file(s) were read`)

	bad := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bad, "a.jsonl"), []byte("{\"resourceSpans\":[]}\n{\"resourceSpans\": 7}\n"), 0o644))
	_, err := LoadRecording(&spec.Recorded{Dir: bad, Match: spec.DefaultMatch})
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(bad, "a.jsonl")+":2: not OTLP JSON trace data")

	empty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("hello"), 0o644))
	_, err = LoadRecording(&spec.Recorded{Dir: empty, Match: spec.DefaultMatch})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "it holds no trace file")
}

// One document a file, written over several lines (a pretty-printed export), is read as
// one; a trace can be matched by its own id; a link in the folder is not followed.
func TestARecordingFileMayHoldOneDocument(t *testing.T) {
	dir := conversationFile(t, recSpec{trace: 5, id: 1, name: "invoke_agent support", attrs: turnAttrs("c", "hello")})
	data, err := os.ReadFile(filepath.Join(dir, "export.jsonl"))
	require.NoError(t, err)
	var doc any
	require.NoError(t, json.Unmarshal(data, &doc))
	pretty, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	one := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(one, "trace.json"), pretty, 0o644))
	require.NoError(t, os.Symlink(filepath.Join(dir, "export.jsonl"), filepath.Join(one, "linked.jsonl")))
	rec, err := LoadRecording(&spec.Recorded{Dir: one, Match: spec.MatchTraceID})
	require.NoError(t, err)
	assert.Equal(t, 1, rec.files, "the link is not read")
	conv, err := rec.find("05010000000000000000000000000000")
	require.NoError(t, err)
	require.Len(t, conv.turns, 1)
	text, ok := replyOf(conv.turns[0][0].span)
	assert.True(t, ok)
	assert.Equal(t, "hello", text)
}

// A conversation whose spans are over the receiver's MaxBody together is sent in smaller
// requests; one span over it alone is refused by the receiver, which says so in the trace
// (incomplete), and the turn still replies.
func TestARecordingOverTheBodyBoundIsSplitOrSaid(t *testing.T) {
	big := strings.Repeat("x", MaxBody*3/4)
	tool := toolAttrs("lookup", `{}`)
	tool["note"] = big
	other := toolAttrs("lookup", `{"again": true}`)
	other["note"] = big
	dir := conversationFile(t,
		recSpec{trace: 1, id: 1, name: "invoke_agent support", attrs: turnAttrs("c", "done")},
		recSpec{trace: 1, id: 2, parent: 1, name: "execute_tool lookup", start: 1, attrs: tool},
		recSpec{trace: 1, id: 3, parent: 1, name: "execute_tool lookup", start: 2, attrs: other})
	replies, errs, tr := replayTurn(t, dir, "c", 1)
	require.NoError(t, errs[0])
	assert.Equal(t, "done", replies[0].Output)
	assert.Len(t, tr.Spans, 3, "split in requests under the bound, every span arrives")
	assert.Zero(t, tr.Refused)

	huge := toolAttrs("lookup", `{}`)
	huge["note"] = strings.Repeat("y", MaxBody+1)
	dir = conversationFile(t,
		recSpec{trace: 1, id: 1, name: "invoke_agent support", attrs: turnAttrs("c", "done")},
		recSpec{trace: 1, id: 2, parent: 1, name: "execute_tool lookup", start: 1, attrs: huge})
	replies, errs, tr = replayTurn(t, dir, "c", 1)
	require.NoError(t, errs[0])
	assert.Equal(t, "done", replies[0].Output)
	assert.Contains(t, tr.Incomplete, "refused", "the span the receiver could not take is said, not lost unseen")
}

// A simulated user that follows a recording says what the recording's user said, turn by
// turn: the last user message of each turn's gen_ai.input.messages, "" where none was kept.
func TestARecordingSaysWhatItsUserSaid(t *testing.T) {
	first := turnAttrs("c", "Which order?")
	first["gen_ai.input.messages"] = `[{"role": "system", "parts": [{"type": "text", "content": "be kind"}]}, {"role": "user", "parts": [{"type": "text", "content": "my order is late"}]}]`
	dir := conversationFile(t,
		recSpec{trace: 1, id: 1, name: "invoke_agent support", start: 0, attrs: first},
		recSpec{trace: 2, id: 1, name: "invoke_agent support", start: 5, attrs: turnAttrs("c", "It ships Friday.")})
	agent, err := NewReplay(&spec.Profile{Recorded: &spec.Recorded{Dir: dir, Match: spec.DefaultMatch}})
	require.NoError(t, err)
	said, err := agent.(hook.Recorder).Conversation("c")
	require.NoError(t, err)
	assert.Equal(t, []string{"my order is late", ""}, said)
	_, err = agent.(hook.Recorder).Conversation("missing")
	assert.Error(t, err)
}
