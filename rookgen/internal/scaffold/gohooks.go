package scaffold

// The Go hooks: a main package in profiles/<agent>/hooks/<agent>/, run with go run (built
// once, then from go's cache), standard library only. The templates go through fmt: the
// code holds no percent sign of its own.

const goCommandHook = `// Command %[1]s is the execute hook of agent %[1]s, written by rookgen init. The hook
// contract: the phase is the last argument, the turn's message comes on stdin, one JSON
// object goes to stdout, diagnostics go to stderr, and a non-zero exit fails the turn.
//
// It runs the agent's command line once per turn: {{goal}} in an argument is replaced by
// the message (as one argument: no shell reads it); without one, the message goes on the
// command's stdin. What the command prints on stdout is the reply.
package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// commandJSON is the agent's command line.
const commandJSON = %[2]s

const maxReply = 8 << 20

func main() {
	if len(os.Args) < 2 || os.Args[len(os.Args)-1] != "execute" {
		return // this profile defines execute only
	}
	var command []string
	if err := json.Unmarshal([]byte(commandJSON), &command); err != nil || len(command) == 0 {
		fail("the command line is not a JSON list of arguments")
	}
	goal, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("read the message: " + err.Error())
	}
	inline := false
	argv := make([]string, len(command))
	for i, arg := range command {
		inline = inline || strings.Contains(arg, "{{goal}}")
		argv[i] = strings.ReplaceAll(arg, "{{goal}}", string(goal))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	// The command runs in the module root (ROOK_WORKSPACE), where init was run: a relative
	// path in it means what it meant there.
	cmd.Dir = os.Getenv("ROOK_WORKSPACE")
	if !inline {
		cmd.Stdin = strings.NewReader(string(goal))
	}
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fail(err.Error())
	}
	if err := cmd.Start(); err != nil {
		fail(argv[0] + ": " + err.Error())
	}
	reply, err := io.ReadAll(io.LimitReader(stdout, maxReply+1))
	if err != nil {
		fail("read the reply: " + err.Error())
	}
	if len(reply) > maxReply {
		_ = cmd.Process.Kill()
		fail(argv[0] + " printed more than " + strconv.Itoa(maxReply) + " bytes")
	}
	if err := cmd.Wait(); err != nil {
		fail(argv[0] + ": " + err.Error())
	}
	if err := json.NewEncoder(os.Stdout).Encode(map[string]string{"output": strings.TrimSpace(string(reply))}); err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	os.Stderr.WriteString(msg + "\n")
	os.Exit(1)
}
`

const goHTTPHook = `// Command %[1]s is the execute hook of agent %[1]s, written by rookgen init from a cURL
// command. The hook contract: the phase is the last argument, the turn's message comes on
// stdin, one JSON object goes to stdout, diagnostics go to stderr, and a non-zero exit
// fails the turn.
//
// Each turn sends the request below with {{goal}} replaced by the message and
// {{conversation}} by the conversation id an earlier turn returned (ROOK_CONVERSATION),
// then reads the reply, and the conversation id, tool calls and usage when their paths
// are set, from the JSON response. {{env:NAME}} is filled from variable NAME: the
// credentials of the request are read from the environment, never written here.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// configJSON is the request, and where the response holds what the hook returns.
const configJSON = %[2]s

const maxResponse = 8 << 20

// placeholder is what the request's templates fill in: the message, the conversation id,
// and {{env:NAME}} for a credential.
var placeholder = regexp.MustCompile("\\{\\{(goal|conversation|lbrace|env:[A-Za-z_][A-Za-z0-9_]*)\\}\\}")

type config struct {
	Request struct {
		Method, URL, Body string
		Headers           []struct{ Name, Value string }
	}
	Reply, Conversation, Calls, Usage string
}

func main() {
	if len(os.Args) < 2 || os.Args[len(os.Args)-1] != "execute" {
		return // this profile defines execute only
	}
	var cfg config
	if err := json.Unmarshal([]byte(configJSON), &cfg); err != nil {
		fail("the request: " + err.Error())
	}
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail("read the message: " + err.Error())
	}
	started := time.Now()
	data, raw := ask(cfg, string(in), os.Getenv("ROOK_CONVERSATION"))
	out := answer(cfg, data, raw)
	// The agent's own time, request to whole response: the latency check uses it rather than
	// this process's, which includes starting it.
	out["latency_ms"] = time.Since(started).Milliseconds()
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(err.Error())
	}
}

// ask sends the request with the message (goal) and the conversation id filled in, and
// returns the decoded response and its raw text.
func ask(cfg config, goal, conversation string) (any, []byte) {
	fill := func(s string, encode func(string) string) string {
		// One pass: {{conversation}} inside the message is text, not a placeholder. A
		// credential is read from its variable when the request is sent: no file holds it.
		return placeholder.ReplaceAllStringFunc(s, func(p string) string {
			switch key := p[2 : len(p)-2]; key {
			case "goal":
				return encode(goal)
			case "conversation":
				return encode(conversation)
			case "lbrace":
				return "{{" // a literal "{{" of the source the request was drafted from
			default:
				v := os.Getenv(key[4:])
				if v == "" {
					fail(key[4:] + " is not set (a credential of the request)")
				}
				return encode(v)
			}
		})
	}
	same := func(s string) string { return s }
	var body io.Reader
	if cfg.Request.Body != "" {
		var v any
		if err := json.Unmarshal([]byte(cfg.Request.Body), &v); err != nil {
			fail("the request body: " + err.Error())
		}
		b, err := json.Marshal(fillJSON(v, func(s string) string { return fill(s, same) }, conversation == ""))
		if err != nil {
			fail(err.Error())
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(cfg.Request.Method, fill(cfg.Request.URL, url.QueryEscape), body)
	if err != nil {
		fail(err.Error())
	}
	for _, h := range cfg.Request.Headers {
		if h.Value == "{{conversation}}" && conversation == "" {
			continue // no conversation yet: the header is left out, not sent empty
		}
		value := fill(h.Value, same)
		req.Header.Set(h.Name, value)
	}
	// The trace context, so that an agent service that propagates it puts its spans in
	// this scenario's trace (the token in tracestate lets the run take them). The service
	// exports to the profile's fixed address (traces: {otlp: 127.0.0.1:4318}) on its own
	// schedule: start it with OTEL_BSP_SCHEDULE_DELAY=100 (the SDKs wait 5 s by default),
	// or flush after each request, and say the schedule in settle_ms (docs/traces.md).
	for _, kv := range [][2]string{{"TRACEPARENT", "traceparent"}, {"TRACESTATE", "tracestate"}} {
		if v := os.Getenv(kv[0]); v != "" {
			req.Header.Set(kv[1], v)
		}
	}
	res, err := (&http.Client{Timeout: 55 * time.Second}).Do(req)
	if err != nil {
		fail(cfg.Request.Method + " " + cfg.Request.URL + ": " + err.Error())
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxResponse+1))
	if err != nil {
		fail("read the response: " + err.Error())
	}
	if len(raw) > maxResponse {
		fail("the response is larger than " + strconv.Itoa(maxResponse) + " bytes")
	}
	if res.StatusCode/100 != 2 {
		why := ""
		if res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden {
			why = sent(cfg)
		}
		fail(cfg.Request.Method + " " + cfg.Request.URL + " answered " + strconv.Itoa(res.StatusCode) + ": " + head(raw) + why)
	}
	var data any
	if err := json.Unmarshal(raw, &data); err != nil {
		fail("the response is not JSON: " + head(raw))
	}
	return data, raw
}

// answer is the hook's stdout: the reply, and the conversation id, calls and usage where
// their paths are set. A path that matches nothing leaves calls (or a usage count) out:
// not observed this turn, which is not the same as "none".
func answer(cfg config, data any, raw []byte) map[string]any {
	reply, ok := at(data, cfg.Reply).(string)
	if !ok {
		fail("no text at " + cfg.Reply + " in the response: " + head(raw))
	}
	out := map[string]any{"output": reply}
	if cfg.Conversation != "" {
		if id := at(data, cfg.Conversation); id != nil {
			out["conversation"] = fmt.Sprint(id)
		}
	}
	if found := at(data, cfg.Calls); cfg.Calls != "" && found != nil {
		list, ok := found.([]any)
		if !ok {
			fail("no list at " + cfg.Calls + " in the response")
		}
		calls := []any{}
		for _, c := range list {
			m, _ := c.(map[string]any)
			fn, _ := m["function"].(map[string]any)
			args := first(m["arguments"], m["args"], m["input"], fn["arguments"])
			if s, ok := args.(string); ok {
				var parsed any
				if json.Unmarshal([]byte(s), &parsed) == nil {
					args = parsed
				}
			}
			calls = append(calls, map[string]any{"name": first(m["name"], m["tool"], fn["name"], ""), "arguments": args, "output": first(m["output"], m["result"])})
		}
		out["calls"] = calls
	}
	if u, ok := at(data, cfg.Usage).(map[string]any); cfg.Usage != "" && ok {
		usage := map[string]any{}
		if n := first(u["input"], u["input_tokens"], u["prompt_tokens"]); n != nil {
			usage["input"] = n
		}
		if n := first(u["output"], u["output_tokens"], u["completion_tokens"]); n != nil {
			usage["output"] = n
		}
		out["usage"] = usage
	}
	return out
}

// sent says how the request sends each credential, for a refused request: the one to fix
// can then be found.
func sent(cfg config) string {
	var where []string
	find := func(s, place string) {
		for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
			if name, ok := strings.CutPrefix(m[1], "env:"); ok {
				where = append(where, name+" in "+place)
			}
		}
	}
	find(cfg.Request.URL, "the URL")
	for _, h := range cfg.Request.Headers {
		find(h.Value, "the "+h.Name+" header")
	}
	find(cfg.Request.Body, "the body")
	if len(where) == 0 {
		return ""
	}
	return " (the request sends " + strings.Join(where, ", ") + ")"
}

// fillJSON replaces the placeholders in every string of a JSON value. Before the agent
// gave a conversation id (noConversation), a field that holds only {{conversation}} is
// left out rather than sent empty.
func fillJSON(v any, fill func(string) string, noConversation bool) any {
	switch v := v.(type) {
	case string:
		return fill(v)
	case []any:
		for i := range v {
			v[i] = fillJSON(v[i], fill, noConversation)
		}
	case map[string]any:
		for k := range v {
			if noConversation && v[k] == "{{conversation}}" {
				delete(v, k)
				continue
			}
			v[k] = fillJSON(v[k], fill, noConversation)
		}
	}
	return v
}

var step = regexp.MustCompile(` + "`" + `\.([^.\[]+)|\[(\d+)\]` + "`" + `)

// at follows a path of .name and [index] steps from $.
func at(v any, path string) any {
	for _, m := range step.FindAllStringSubmatch(path, -1) {
		switch c := v.(type) {
		case map[string]any:
			v = c[m[1]]
		case []any:
			i, err := strconv.Atoi(m[2])
			if m[1] != "" || err != nil || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

func first(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}

func head(b []byte) string {
	if len(b) > 500 {
		b = b[:500]
	}
	return strconv.Quote(string(b))
}

func fail(msg string) {
	os.Stderr.WriteString(msg + "\n")
	os.Exit(1)
}
`
