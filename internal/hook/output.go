package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
)

// Output is what a hook reported on stdout.
type Output struct {
	// Data is the whole object, as decoded.
	Data map[string]any
	// Reply is execute's output (or agent_reply); HasReply says it was given.
	Reply    string
	HasReply bool
	// ReplyUnobserved says why execute could not see the agent's reply (reply_unobserved:
	// a hook that reads a trace recorded with message content off): the turn replied, and
	// what it said is not known, so nothing about it is decided from it.
	ReplyUnobserved string
	// Conversation is the handle that threads later turns and phases.
	Conversation string
	// Usage is nil when the hook reported none.
	Usage *record.Usage
	// Calls are the observed tool calls; CallsObserved distinguishes calls: [] (observed
	// none) from an absent key (not observable).
	Calls         []record.Call
	CallsObserved bool
	// LatencyMs is the agent's own time for an execute turn (latency_ms), as the hook
	// measured it around its request; nil when the hook reported none.
	LatencyMs *int64
	// RetryAfterMs is how long the agent's API asked to be left alone (retry_after_ms, as
	// an HTTP 429's Retry-After says it); nil when the hook said nothing of it. An execute
	// turn that gives it and no reply is run again once the wait is over.
	RetryAfterMs *int64
	// Notes name keys that look like a near miss of the contract (tool_calls for calls),
	// which the runtime does not read.
	Notes []string
	// Unread are the contract's keys (output, calls, usage, conversation) that were absent
	// or empty while a near miss of them held something: what the agent did is in the
	// output, under a key that is not read.
	Unread []string
}

// ParseOutput reads a hook's stdout. Empty stdout is no data; otherwise it must be exactly
// one JSON object. requireReply is set for execute, whose output is required.
func ParseOutput(stdout []byte, requireReply bool) (*Output, error) {
	m, err := Decode(stdout, requireReply)
	if m == nil {
		return &Output{}, err
	}
	return FromData(m, requireReply)
}

// Decode reads a hook's stdout as ParseOutput does, up to the decoded object: nil for
// empty stdout (an error when requireReply), or with the error of stdout that is not
// exactly one JSON object. A caller that must change the object before its fields are
// read (redaction) decodes, changes, then calls FromData.
func Decode(stdout []byte, requireReply bool) (map[string]any, error) {
	trimmed := bytes.TrimSpace(stdout)
	if len(trimmed) == 0 {
		if requireReply {
			return nil, errors.New("printed nothing on stdout; execute must print one JSON object with \"output\"")
		}
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("stdout is not JSON (%v): %s", err, quote(trimmed))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("stdout holds more than one JSON value; print one object: %s", quote(trimmed))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("stdout is JSON but not an object: %s", quote(trimmed))
	}
	if d := depth(m); d > MaxDepth {
		return nil, fmt.Errorf("stdout nests objects and lists %d deep, more than %d: %s", d, MaxDepth, quote(trimmed))
	}
	numbers(m)
	return m, nil
}

// FromData reads the contract's fields from a hook's decoded stdout object, as ParseOutput
// does; it is how recorded phase data becomes evidence again.
func FromData(m map[string]any, requireReply bool) (*Output, error) {
	out := &Output{Data: m}
	var problems []error
	reply, hasReply := m["agent_reply"]
	if !hasReply || reply == nil {
		reply, hasReply = m["output"]
	}
	if hasReply && reply != nil {
		s, isStr := reply.(string)
		if !isStr {
			problems = append(problems, fmt.Errorf("\"output\" must be a string, got %s", quote(mustJSON(reply))))
		}
		out.Reply, out.HasReply = s, isStr
	}
	if u, ok := m["reply_unobserved"]; ok && u != nil {
		why, isStr := u.(string)
		switch {
		case !isStr || strings.TrimSpace(why) == "":
			problems = append(problems, fmt.Errorf("\"reply_unobserved\" must say, as text, why the reply was not seen, got %s", quote(mustJSON(u))))
		case out.HasReply:
			problems = append(problems, errors.New("\"reply_unobserved\" is given with an \"output\": a turn's reply is either seen or not"))
		case len(why) > maxWhy:
			out.ReplyUnobserved = strings.ToValidUTF8(why[:maxWhy], "") + "..."
		default:
			out.ReplyUnobserved = why
		}
	}
	out.Notes, out.Unread = nearMisses(m, requireReply)
	if r, ok := m["retry_after_ms"]; ok && r != nil {
		ms, err := parseMillis("retry_after_ms", r, maxRetryAfterMs)
		if err != nil {
			problems = append(problems, err)
		}
		out.RetryAfterMs = ms
	}
	if requireReply && !out.HasReply && out.ReplyUnobserved == "" && out.RetryAfterMs == nil && len(problems) == 0 {
		problems = append(problems, fmt.Errorf("stdout has no \"output\" (or \"agent_reply\"); execute must return the agent's answer: %s", quote(mustJSON(m))))
	}
	if c, ok := m["conversation"]; ok && c != nil {
		switch x := c.(type) {
		case string:
			out.Conversation = x
		case int64:
			out.Conversation = fmt.Sprint(x)
		default:
			problems = append(problems, fmt.Errorf("\"conversation\" must be a string, got %s", quote(mustJSON(c))))
		}
	}
	if u, ok := m["usage"]; ok && u != nil {
		usage, err := parseUsage(u)
		if err != nil {
			problems = append(problems, err)
		}
		out.Usage = usage
	}
	if l, ok := m["latency_ms"]; ok && l != nil {
		ms, err := parseLatency(l)
		if err != nil {
			problems = append(problems, err)
		}
		out.LatencyMs = ms
	}
	if c, ok := m["calls"]; ok && c != nil {
		calls, err := parseCalls(c)
		if err != nil {
			problems = append(problems, err)
		} else {
			out.Calls, out.CallsObserved = calls, true
		}
	}
	return out, errors.Join(problems...)
}

// misses are keys hooks print that look like the contract's but are not it, and what the
// contract calls them.
var misses = map[string]string{
	"tool_calls": `"calls" ([{name, arguments, output?}])`, "toolCalls": `"calls" ([{name, arguments, output?}])`,
	"tool_uses": `"calls" ([{name, arguments, output?}])`, "function_calls": `"calls" ([{name, arguments, output?}])`,
	"reply": `"output" (or "agent_reply")`, "response": `"output" (or "agent_reply")`, "answer": `"output" (or "agent_reply")`,
	"tokens": `"usage" ({input, output})`, "token_usage": `"usage" ({input, output})`, "usageMetadata": `"usage" ({input, output})`,
	"prompt_tokens": `"usage" ({input, output})`, "completion_tokens": `"usage" ({input, output})`,
	"input_tokens": `"usage" ({input, output})`, "output_tokens": `"usage" ({input, output})`, "total_tokens": `"usage" ({input, output})`,
	"conversation_id": `"conversation"`, "thread_id": `"conversation"`, "session_id": `"conversation"`,
}

// nearMisses names the keys of m that look like a near miss of the contract, when the key
// the contract expects is absent or empty, and the contract's keys such a near miss
// holds something for.
func nearMisses(m map[string]any, execute bool) (notes, unread []string) {
	for k, want := range misses {
		if _, ok := m[k]; !ok || (!execute && strings.HasPrefix(want, `"output"`)) {
			continue // a reply matters in execute only
		}
		key := want[1 : strings.IndexByte(want[1:], '"')+1]
		v, has := m[key]
		if key == "output" && !has {
			v, has = m["agent_reply"]
		}
		if has && (!empty(v) || empty(m[k])) {
			continue // the contract's key holds something, or both hold nothing
		}
		notes = append(notes, fmt.Sprintf("%q is not read: the hook contract's key is %s", k, want))
		if !empty(m[k]) && !slices.Contains(unread, key) {
			unread = append(unread, key)
		}
	}
	sort.Strings(notes)
	sort.Strings(unread)
	return notes, unread
}

// empty reports whether a value holds nothing: null, "", [], {}.
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// maxWhy bounds the reason a hook gives for a reply it did not see, which verdicts repeat.
const maxWhy = 300

// MaxTokens bounds a token count a hook reports: a count beyond it is a bug or an attack,
// and it keeps every sum of counts far from overflowing.
const MaxTokens = 1e12

// MaxDepth bounds how deeply a hook's stdout may nest objects and lists: records of deeper
// data grow with the square of the depth.
const MaxDepth = 128

// depth is how deeply v nests, counted without recursion.
func depth(v any) int {
	type item struct {
		v any
		d int
	}
	deepest, stack := 0, []item{{v, 1}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		deepest = max(deepest, it.d)
		if it.d > MaxDepth {
			return it.d
		}
		switch x := it.v.(type) {
		case map[string]any:
			for _, c := range x {
				stack = append(stack, item{c, it.d + 1})
			}
		case []any:
			for _, c := range x {
				stack = append(stack, item{c, it.d + 1})
			}
		}
	}
	return deepest
}

// maxLatencyMs bounds a reported latency: a day; maxRetryAfterMs a requested wait: an hour.
const (
	maxLatencyMs    = 24 * 60 * 60 * 1000
	maxRetryAfterMs = 60 * 60 * 1000
)

// parseLatency reads latency_ms: milliseconds, a non-negative number (a fraction is
// rounded) up to a day.
func parseLatency(v any) (*int64, error) { return parseMillis("latency_ms", v, maxLatencyMs) }

// parseMillis reads key's milliseconds: a non-negative number (a fraction is rounded) up
// to most.
func parseMillis(key string, v any, most float64) (*int64, error) {
	var f float64
	switch n := v.(type) {
	case int64:
		f = float64(n)
	case float64:
		f = n
	default:
		return nil, fmt.Errorf("%q must be a number of milliseconds, got %s", key, quote(mustJSON(v)))
	}
	if f < 0 || f > most || math.IsNaN(f) {
		return nil, fmt.Errorf("%q must be from 0 to %d milliseconds, got %s", key, int64(most), quote(mustJSON(v)))
	}
	ms := int64(math.Round(f))
	return &ms, nil
}

func parseUsage(v any) (*record.Usage, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("\"usage\" must be an object {input, output}, got %s", quote(mustJSON(v)))
	}
	get := func(keys ...string) (*int64, error) {
		for _, k := range keys {
			if x, ok := m[k]; ok && x != nil {
				switch n := x.(type) {
				case int64:
					if n >= 0 && n <= MaxTokens {
						return &n, nil
					}
				case float64:
					if n >= 0 && n <= MaxTokens && n == math.Trunc(n) {
						i := int64(n)
						return &i, nil
					}
				case json.Number: // beyond what int64 or float64 hold exactly
				default:
					return nil, fmt.Errorf("\"usage.%s\" must be a number, got %s", k, quote(mustJSON(x)))
				}
				return nil, fmt.Errorf("\"usage.%s\" must be a non-negative whole count up to %d, got %s", k, int64(MaxTokens), quote(mustJSON(x)))
			}
		}
		return nil, nil
	}
	in, err := get("input", "input_tokens", "prompt_tokens")
	if err != nil {
		return nil, err
	}
	outN, err := get("output", "output_tokens", "completion_tokens")
	if err != nil {
		return nil, err
	}
	if in == nil && outN == nil {
		return nil, nil
	}
	// A count the hook left out stays nil: it was not observed.
	return &record.Usage{Input: in, Output: outN}, nil
}

func parseCalls(v any) ([]record.Call, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("\"calls\" must be a list of {name, arguments}, got %s", quote(mustJSON(v)))
	}
	calls := make([]record.Call, 0, len(list))
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("\"calls[%d]\" must be an object {name, arguments}, got %s", i, quote(mustJSON(item)))
		}
		name, _ := m["name"].(string)
		if name == "" {
			return nil, fmt.Errorf("\"calls[%d]\" has no \"name\": %s", i, quote(mustJSON(item)))
		}
		c := record.Call{Name: name, Output: m["output"]}
		c.ID, _ = m["id"].(string)
		_, hasOutput := m["output"]
		e, hasError := m["error"]
		if hasError && e != nil && e != false {
			c.Error = fmt.Sprint(e)
		}
		c.OutcomeKnown = hasOutput || hasError
		if a, ok := m["arguments"].(map[string]any); ok {
			c.Arguments = a
		} else if s, ok := m["arguments"].(string); ok {
			// Some agents report arguments as a JSON string.
			var parsed map[string]any
			if json.Unmarshal([]byte(s), &parsed) == nil {
				c.Arguments = parsed
			}
		}
		calls = append(calls, c)
	}
	return calls, nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprint(v))
	}
	return b
}

// quote shows the first bytes of b, quoted, for an error message.
func quote(b []byte) string {
	const max = 200
	if len(b) > max {
		return fmt.Sprintf("%q (first %d of %d bytes)", b[:max], max, len(b))
	}
	return fmt.Sprintf("%q", b)
}

// Numbers replaces json.Number values in v, in place, as ParseOutput does; records read
// back from disk go through it so that their numbers compare as they did when recorded.
func Numbers(v any) any { return numbers(v) }

// numbers replaces json.Number values in place with int64 (when whole and in range) or
// float64 (when a float64 holds the number exactly), so that records show numbers as
// numbers; any other number stays a json.Number, its digits as the hook printed them, so
// that nothing compares equal that the hook did not say.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil && exactFloat(string(x), f) {
			return f
		}
		return x
	case map[string]any:
		for k, vv := range x {
			x[k] = numbers(vv)
		}
	case []any:
		for i := range x {
			x[i] = numbers(x[i])
		}
	}
	return v
}

// exactFloat reports whether f is exactly the number text writes.
func exactFloat(text string, f float64) bool {
	if math.IsInf(f, 0) {
		return false
	}
	shortest := strconv.FormatFloat(f, 'g', -1, 64)
	if shortest == text {
		return true // the common case, without big numbers
	}
	r, ok := new(big.Rat).SetString(text)
	fr, ok2 := new(big.Rat).SetString(shortest)
	return ok && ok2 && r.Cmp(fr) == 0
}
