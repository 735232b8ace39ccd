package otlp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/spec"
)

// Bounds on the recorded trace files a profile names (hooks: {traces: DIR}): they are read
// whole before the run starts, so a folder of the wrong thing is refused, not swapped in.
const (
	// MaxRecordedDoc is the largest one JSON document (a line of a file, or a whole file).
	MaxRecordedDoc = 64 << 20
	// MaxRecorded is the most all the folder's files may hold together.
	MaxRecorded = 1 << 30
	// replayChunk is how many spans one export request of a replay carries.
	replayChunk = 256
)

// Recording is the spans of a folder of recorded trace files, by trace, and which traces
// each conversation is in.
type Recording struct {
	cfg    *spec.Recorded
	traces map[pcommon.TraceID][]recSpan
	// conversations are the traces each value of cfg.Match is found in, in the order first
	// found.
	conversations map[string][]pcommon.TraceID
	files, spans  int

	// found are the conversations already put together, by scenario: each turn of each
	// attempt asks for its scenario's.
	mu    sync.Mutex
	found map[string]*conversation
}

// recSpan is one recorded span, with the resource and scope it was exported under.
type recSpan struct {
	span     ptrace.Span
	resource pcommon.Resource
	scope    pcommon.InstrumentationScope
}

// LoadRecording reads every trace file of the profile's folder (*.json, *.jsonl, *.ndjson,
// in its subfolders too): OTLP JSON, one export request a line as the OpenTelemetry
// Collector's file exporter writes them, or one a file. A document that is not one is an
// error naming its file and line.
func LoadRecording(cfg *spec.Recorded) (*Recording, error) {
	rec := &Recording{cfg: cfg, traces: map[pcommon.TraceID][]recSpan{}, conversations: map[string][]pcommon.TraceID{}}
	total := 0
	err := filepath.WalkDir(cfg.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".json", ".jsonl", ".ndjson":
		default:
			return nil
		}
		if !d.Type().IsRegular() {
			return nil // a link is not followed out of the folder
		}
		n, err := rec.readFile(path, MaxRecorded-total)
		total += n
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read the recorded traces in %s: %w", cfg.Dir, err)
	}
	if rec.files == 0 {
		return nil, fmt.Errorf("read the recorded traces in %s: it holds no trace file (*.json, *.jsonl, *.ndjson)", cfg.Dir)
	}
	return rec, nil
}

// readFile reads one file's documents, at most room bytes of them, and says how many.
func (rec *Recording) readFile(path string, room int) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st.Size() > int64(room) {
		return 0, fmt.Errorf("%s: the folder's trace files hold more than %d bytes", path, MaxRecorded)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(room)+1))
	if err != nil {
		return 0, err
	}
	rec.files++
	var u ptrace.JSONUnmarshaler
	if t := bytes.TrimSpace(data); len(t) <= MaxRecordedDoc && json.Valid(t) {
		// One document, perhaps written over several lines (a file of one document a line
		// is not one JSON value).
		td, err := u.UnmarshalTraces(t)
		if err != nil {
			return len(data), fmt.Errorf("%s: not OTLP JSON trace data: %w", path, err)
		}
		rec.add(td)
		return len(data), nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxRecordedDoc)
	for line := 1; sc.Scan(); line++ {
		doc := bytes.TrimSpace(sc.Bytes())
		if len(doc) == 0 {
			continue
		}
		td, err := u.UnmarshalTraces(doc)
		if err != nil {
			return len(data), fmt.Errorf("%s:%d: not OTLP JSON trace data (one export request a line, as the collector's file exporter writes): %w", path, line, err)
		}
		rec.add(td)
	}
	if err := sc.Err(); err != nil {
		return len(data), fmt.Errorf("%s: %w (a document is at most %d bytes)", path, err, MaxRecordedDoc)
	}
	return len(data), nil
}

// add indexes the spans of one document by trace and by conversation.
func (rec *Recording) add(td ptrace.Traces) {
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		resValue, resHas := matchValue(rec.cfg.Match, rs.Resource().Attributes())
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			ss := rs.ScopeSpans().At(j)
			for k := 0; k < ss.Spans().Len(); k++ {
				sp := ss.Spans().At(k)
				id := sp.TraceID()
				rec.traces[id] = append(rec.traces[id], recSpan{span: sp, resource: rs.Resource(), scope: ss.Scope()})
				rec.spans++
				value, has := resValue, resHas
				if v, ok := matchValue(rec.cfg.Match, sp.Attributes()); ok {
					value, has = v, true
				}
				if rec.cfg.Match == spec.MatchTraceID {
					value, has = hex.EncodeToString(id[:]), true
				}
				if has && !containsID(rec.conversations[value], id) {
					rec.conversations[value] = append(rec.conversations[value], id)
				}
			}
		}
	}
}

func matchValue(key string, attrs pcommon.Map) (string, bool) {
	v, ok := attrs.Get(key)
	if !ok {
		return "", false
	}
	return v.AsString(), true
}

func containsID(ids []pcommon.TraceID, id pcommon.TraceID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// conversation is one conversation's spans: each turn's (an invoke_agent span no other
// turn holds, and everything under it) in the order the turns started, and the rest.
type conversation struct {
	turns [][]recSpan
	rest  []recSpan
}

// find is the conversation the scenario's value names, or why there is none; put together
// once a scenario, as every turn of every attempt asks for it.
func (rec *Recording) find(scenario string) (*conversation, error) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if c, ok := rec.found[scenario]; ok {
		return c, nil
	}
	c, err := rec.assemble(scenario)
	if err == nil {
		if rec.found == nil {
			rec.found = map[string]*conversation{}
		}
		rec.found[scenario] = c
	}
	return c, err
}

// assemble puts the scenario's conversation together from the recording's spans.
func (rec *Recording) assemble(scenario string) (*conversation, error) {
	value := rec.cfg.Conversation(scenario)
	ids := rec.conversations[value]
	if len(ids) == 0 {
		return nil, fmt.Errorf("no recorded trace in %s has %s = %q (%d span(s) in %d file(s) were read; hooks.traces.conversations gives a scenario's value)",
			rec.cfg.Dir, rec.cfg.Match, value, rec.spans, rec.files)
	}
	var all []recSpan
	for _, id := range ids {
		all = append(all, rec.traces[id]...)
	}
	byID := make(map[pcommon.SpanID]int, len(all))
	for i, s := range all {
		byID[s.span.SpanID()] = i
	}
	// A turn is an invoke_agent span with no invoke_agent above it: an agent it invokes is
	// part of its turn. Every span is the turn's above it, or, with none, the session's.
	turnOf := make([]int, len(all))
	var turns []int
	for i := range all {
		turnOf[i] = -1
		for cur, depth := i, 0; depth <= len(all); depth++ {
			if isInvokeAgent(all[cur].span) {
				turnOf[i] = cur
			}
			p, ok := byID[all[cur].span.ParentSpanID()]
			if all[cur].span.ParentSpanID().IsEmpty() || !ok {
				break
			}
			cur = p
		}
		if turnOf[i] == i {
			turns = append(turns, i)
		}
	}
	sort.SliceStable(turns, func(a, b int) bool {
		return all[turns[a]].span.StartTimestamp() < all[turns[b]].span.StartTimestamp()
	})
	c := &conversation{turns: make([][]recSpan, len(turns))}
	index := make(map[int]int, len(turns))
	for n, i := range turns {
		index[i] = n
		c.turns[n] = []recSpan{all[i]} // the turn's own span first
	}
	for i, s := range all {
		switch t := turnOf[i]; {
		case t < 0:
			c.rest = append(c.rest, s)
		case t != i:
			c.turns[index[t]] = append(c.turns[index[t]], s)
		}
	}
	return c, nil
}

func isInvokeAgent(sp ptrace.Span) bool {
	v, ok := sp.Attributes().Get("gen_ai.operation.name")
	return ok && v.AsString() == "invoke_agent"
}

// Replay is the agent of a profile of recorded traces: each execute turn exports the
// recorded turn's spans to the run's receiver, in the attempt's trace under the turn's
// call (its TRACEPARENT), with the call's token, as an instrumented agent's SDK would;
// and replies what the turn's span recorded the agent replying, or, when it recorded no
// reply, says so (reply_unobserved). Its calls and usage are the spans'.
type Replay struct {
	rec    *Recording
	client *http.Client
}

// NewReplay reads the profile's recorded traces for a run.
func NewReplay(p *spec.Profile) (hook.Agent, error) {
	rec, err := LoadRecording(p.Recorded)
	if err != nil {
		return nil, err
	}
	return &Replay{rec: rec, client: &http.Client{}}, nil
}

// Execute replays turn c.Turn of the scenario's recorded conversation.
func (r *Replay) Execute(ctx context.Context, c hook.Call) (hook.Reply, error) {
	conv, err := r.rec.find(c.Scenario)
	if err != nil {
		return hook.Reply{}, err
	}
	if c.Turn < 1 || c.Turn > len(conv.turns) {
		return hook.Reply{}, fmt.Errorf("the recorded conversation %s = %q has %d turn(s) (invoke_agent spans), and the scenario's turn %d has none",
			r.rec.cfg.Match, r.rec.cfg.Conversation(c.Scenario), len(conv.turns), c.Turn)
	}
	spans := conv.turns[c.Turn-1]
	if c.Turn == 1 {
		spans = append(spans[:len(spans):len(spans)], conv.rest...) // the session's, sent once
	}
	if err := r.export(ctx, c, spans); err != nil {
		return hook.Reply{}, err
	}
	turn := spans[0].span
	ms := int64(turn.EndTimestamp().AsTime().Sub(turn.StartTimestamp().AsTime()).Milliseconds())
	reply := hook.Reply{Conversation: r.rec.cfg.Conversation(c.Scenario)}
	if ms >= 0 && turn.EndTimestamp() != 0 {
		reply.LatencyMs = &ms
	}
	if text, ok := replyOf(turn); ok {
		reply.Output = text
	} else {
		reply.ReplyUnobserved = fmt.Sprintf("the recorded turn's span %q holds no reply (gen_ai.output.messages or gen_ai.completion): its traces were recorded with message content off", turn.Name())
	}
	return reply, nil
}

// Conversation is the user's message of each recorded turn of the scenario's conversation
// (the last user message in the turn span's gen_ai.input.messages, else gen_ai.prompt; ""
// where none was recorded), for a simulated user that follows the recording.
func (r *Replay) Conversation(scenario string) ([]string, error) {
	conv, err := r.rec.find(scenario)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(conv.turns))
	for i, t := range conv.turns {
		out[i] = inputOf(t[0].span)
	}
	return out, nil
}

// inputOf is the user's message a turn's span recorded, "" when it recorded none.
func inputOf(sp ptrace.Span) string {
	if v, ok := sp.Attributes().Get("gen_ai.input.messages"); ok {
		if text, ok := lastText(v.AsString(), "user"); ok {
			return text
		}
	}
	if v, ok := sp.Attributes().Get("gen_ai.prompt"); ok {
		return v.AsString()
	}
	return ""
}

// lastText is the text of the last message of role in a GenAI conventions' messages
// JSON (a message with no role counts as any role's).
func lastText(messages, role string) (string, bool) {
	var msgs []struct {
		Role  string `json:"role"`
		Parts []struct {
			Type    string `json:"type"`
			Content any    `json:"content"`
		} `json:"parts"`
	}
	if json.Unmarshal([]byte(messages), &msgs) != nil {
		return "", false
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != role && msgs[i].Role != "" {
			continue
		}
		var texts []string
		for _, p := range msgs[i].Parts {
			if s, isText := p.Content.(string); isText && (p.Type == "" || p.Type == "text") {
				texts = append(texts, s)
			}
		}
		if len(texts) > 0 {
			return strings.Join(texts, "\n"), true
		}
	}
	return "", false
}

// replyOf is what a turn's span recorded the agent replying: the assistant's last message
// in gen_ai.output.messages (the GenAI conventions' JSON), else gen_ai.completion.
func replyOf(sp ptrace.Span) (string, bool) {
	if v, ok := sp.Attributes().Get("gen_ai.output.messages"); ok {
		if text, ok := lastText(v.AsString(), "assistant"); ok {
			return text, true
		}
	}
	if v, ok := sp.Attributes().Get("gen_ai.completion"); ok && v.AsString() != "" {
		return v.AsString(), true
	}
	return "", false
}

// export sends spans to the receiver the call's environment names, in the call's trace:
// the turn's own span (the first) under the call's span, the others under the parents
// they were recorded with.
func (r *Replay) export(ctx context.Context, c hook.Call, spans []recSpan) error {
	endpoint := c.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	parent := c.Getenv("TRACEPARENT")
	parts := strings.Split(parent, "-")
	if endpoint == "" || len(parts) != 4 {
		return errors.New("the run gave no trace receiver (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, TRACEPARENT): a replay of recorded traces needs rooktest/traces linked")
	}
	var trace pcommon.TraceID
	var call pcommon.SpanID
	if t, err := hex.DecodeString(parts[1]); err == nil && len(t) == 16 {
		copy(trace[:], t)
	}
	if s, err := hex.DecodeString(parts[2]); err == nil && len(s) == 8 {
		copy(call[:], s)
	}
	header, token, _ := strings.Cut(c.Getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS"), "=")
	for start := 0; start < len(spans); start += replayChunk {
		if err := r.send(ctx, endpoint, header, token, trace, call, spans[start:min(start+replayChunk, len(spans))], start == 0); err != nil {
			return err
		}
	}
	return nil
}

// send exports spans in one request, or, when they are over the receiver's MaxBody, in
// two halves. The first span is the turn's own, when first. A request the receiver
// refuses (a span over its bounds) is not the replay's failure: the receiver counts it
// against the attempt, whose trace is then incomplete, and says so.
func (r *Replay) send(ctx context.Context, endpoint, header, token string, trace pcommon.TraceID, call pcommon.SpanID, spans []recSpan, first bool) error {
	td := ptrace.NewTraces()
	for i, s := range spans {
		rs := td.ResourceSpans().AppendEmpty()
		s.resource.CopyTo(rs.Resource())
		ss := rs.ScopeSpans().AppendEmpty()
		s.scope.CopyTo(ss.Scope())
		sp := ss.Spans().AppendEmpty()
		s.span.CopyTo(sp)
		sp.SetTraceID(trace)
		if first && i == 0 {
			sp.SetParentSpanID(call)
		}
		sp.TraceState().FromRaw("")
	}
	body, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		return fmt.Errorf("replay the recorded spans: %w", err)
	}
	if len(body) > MaxBody && len(spans) > 1 {
		half := len(spans) / 2
		if err := r.send(ctx, endpoint, header, token, trace, call, spans[:half], first); err != nil {
			return err
		}
		return r.send(ctx, endpoint, header, token, trace, call, spans[half:], false)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("replay the recorded spans: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set(header, token)
	resp, err := r.client.Do(req)
	if err != nil {
		return fmt.Errorf("replay the recorded spans: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	return nil
}
