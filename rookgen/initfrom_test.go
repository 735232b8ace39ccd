package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/rookgen/internal/scaffold"
)

// draftData is where the documents init --from is tested on are kept, with their sources
// and licences (SOURCES.md).
const draftData = "internal/draft/testdata/"

// chatRequest is what the loopback agents read of a request: Ollama's and OpenAI's chat
// bodies, and the recorded web chat's.
type chatRequest struct {
	Model    string `json:"model"`
	Stream   *bool  `json:"stream"`
	Messages []struct {
		Role, Content string
	} `json:"messages"`
	Message   string  `json:"message"`
	Question  string  `json:"question"`
	SessionID *string `json:"session_id"`
}

// loopbackAgent serves handle at path on 127.0.0.1, refusing any other path or method:
// the drafted request must be the one the API takes.
func loopbackAgent(t *testing.T, path string, handle func(in chatRequest, r *http.Request) (any, int)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != path {
			http.Error(w, "no such endpoint: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var in chatRequest
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out, status := handle(in, r)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func lastUser(in chatRequest) string {
	if n := len(in.Messages); n > 0 && in.Messages[n-1].Role == "user" {
		return in.Messages[n-1].Content
	}
	return ""
}

// ollamaChat answers as Ollama's /api/chat does, streaming unless told not to; it wants
// the model and the probe's message.
func ollamaChat(in chatRequest) (any, int) {
	switch {
	case in.Stream == nil || *in.Stream:
		return "this stand-in does not stream", http.StatusBadRequest
	case in.Model != "gemma3":
		return map[string]any{"error": "model is required"}, http.StatusBadRequest
	case lastUser(in) != probeGoal:
		return map[string]any{"error": "not the probe's message"}, http.StatusBadRequest
	}
	return map[string]any{"model": in.Model, "created_at": "2026-12-05T10:00:00Z", "done": true,
		"message": map[string]any{"role": "assistant", "content": "Hi, the connection works.",
			"tool_calls": []any{map[string]any{"function": map[string]any{"name": "ping", "arguments": map[string]any{}}}}}}, http.StatusOK
}

// TestInitFromOpenAPI: init --from two public OpenAPI documents of chat APIs, each against
// a loopback agent that serves that API, and the probe passes. The Ollama server streams
// unless told not to, as Ollama does; the document's required model comes from its cURL
// code sample.
func TestInitFromOpenAPI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, doc, path, base string
		answer                func(in chatRequest) (any, int)
		want                  []string
	}{{
		name: "ollama", doc: "ollama.openapi.yaml", path: "/api/chat", answer: ollamaChat,
		want: []string{"read " + draftData + "ollama.openapi.yaml: OpenAPI 3.1.0 document", "POST /api/chat (operation chat)",
			`model: "gemma3" (required), from the document's example request`, "reply:        $.message.content", "calls:        $.message.tool_calls",
			"calls seen: 1: \"ping\""},
	}, {
		name: "openai", doc: "openai.openapi.json", path: "/v1/chat/completions", base: "/v1",
		answer: func(in chatRequest) (any, int) {
			if in.Stream == nil || *in.Stream || in.Model == "" || lastUser(in) != probeGoal {
				return map[string]any{"error": "bad request"}, http.StatusBadRequest
			}
			return map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": in.Model,
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": "Hello there."}}},
				"usage":   map[string]any{"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}}, http.StatusOK
		},
		want: []string{"OpenAPI 3.0.0 document", "POST /chat/completions (operation createChatCompletion)", "reply:        $.choices[0].message.content",
			"usage:        $.usage", "usage seen: ", "set it in the hook's request"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := loopbackAgent(t, tc.path, func(in chatRequest, _ *http.Request) (any, int) { return tc.answer(in) })
			dir := newModule(t)
			var stdout, stderr bytes.Buffer
			code := run([]string{"init", tc.name, "--from", draftData + tc.doc, "--server", srv.URL + tc.base, "-root", dir}, &stdout, &stderr)
			require.Equal(t, 0, code, stdout.String()+stderr.String())
			out := stdout.String()
			for _, w := range tc.want {
				assert.Contains(t, out, w)
			}
			assert.Contains(t, out, "\nverified: the agent answered the probe through profile "+tc.name+"/local")
			assert.Less(t, strings.Index(out, "read "), strings.Index(out, "wrote "), "what init understood comes before what it wrote")
			profile, err := os.ReadFile(filepath.Join(dir, "profiles", tc.name, "local.yaml"))
			require.NoError(t, err)
			assert.NotContains(t, string(profile), "NOT VERIFIED")
		})
	}
}

// TestInitFromPostman: a Postman collection generated from Ollama's document gives no
// model (only a <string> stand-in, left out), so the agent refuses the probe: the profile is
// written NOT VERIFIED with the agent's words, and init exits 1. With the model added to the
// hook's request, the probe passes and removes the header.
func TestInitFromPostman(t *testing.T) {
	t.Parallel()
	srv := loopbackAgent(t, "/api/chat", func(in chatRequest, _ *http.Request) (any, int) { return ollamaChat(in) })
	dir := newModule(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"init", "ollama", "--from", draftData + "ollama.postman.json", "--server", srv.URL, "-root", dir}, &stdout, &stderr)
	require.Equal(t, 1, code, stdout.String()+stderr.String())
	assert.Contains(t, stdout.String(), "left out keep_alive, logprobs, model, options, think, tools, top_logprobs")
	assert.Contains(t, stderr.String(), "profiles/ollama/local.yaml is written but NOT VERIFIED")
	profile := filepath.Join(dir, "profiles/ollama/local.yaml")
	data, err := os.ReadFile(profile)
	require.NoError(t, err)
	assert.Contains(t, string(data), `model is required`)

	hook := filepath.Join(dir, "profiles/ollama/hooks/ollama.mjs")
	script, err := os.ReadFile(hook)
	require.NoError(t, err)
	edited := strings.Replace(string(script), `\"stream\":false`, `\"model\":\"gemma3\",\"stream\":false`, 1)
	require.NotEqual(t, string(script), edited, "the hook's request body")
	require.NoError(t, os.WriteFile(hook, []byte(edited), 0o755))
	stdout.Reset()
	require.Equal(t, 0, run([]string{"probe", "ollama/local", "-root", dir}, &stdout, &stderr), stdout.String()+stderr.String())
	data, err = os.ReadFile(profile)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "NOT VERIFIED")
}

// TestInitFromHAR: init --from a HAR export that Chromium recorded of a web chat (two
// turns, the second sending the first's session id back): the profile's request carries
// the recorded headers less the browser's own, its credential is read from a variable and
// written nowhere, and with the variable unset the probe cannot run, so the profile is
// marked NOT VERIFIED and init exits 1. With it set, rookgen probe passes and removes the
// mark, and a two-turn scenario continues the conversation under go test.
func TestInitFromHAR(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	const token = "sk-demo-5f2b9c0e7a1d4e36" // the recording's
	turns := map[string]int{}
	srv := loopbackAgent(t, "/api/assistant/messages", func(in chatRequest, r *http.Request) (any, int) {
		if r.Header.Get("Authorization") != "Bearer "+token || r.Header.Get("X-Client") != "web-chat/2.3" || r.Header.Get("Sec-Fetch-Mode") != "" {
			return map[string]any{"error": "who are you?"}, http.StatusUnauthorized
		}
		session := fmt.Sprintf("conv_%d", len(turns)+1)
		if in.SessionID != nil {
			session = *in.SessionID
		}
		turns[session]++
		return map[string]any{"session_id": session,
			"reply":      map[string]any{"role": "assistant", "text": fmt.Sprintf("%s (turn %d)", in.Message, turns[session])},
			"tool_calls": []any{map[string]any{"name": "lookup_price", "arguments": map[string]any{"plan": "pro"}}},
			"usage":      map[string]any{"input_tokens": 21, "output_tokens": 9}}, http.StatusOK
	})
	dir := newModule(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"init", "webchat", "--from", draftData + "assistant.har", "--server", srv.URL, "-root", dir}, &stdout, &stderr)
	require.Equal(t, 1, code, "the credential is unset, so the probe cannot run: %s", stdout.String()+stderr.String())
	out := stdout.String()
	for _, w := range []string{"HAR export (Playwright 1.65.1)", "request:      POST " + srv.URL + "/api/assistant/messages",
		"header:       Authorization: Bearer {{env:WEBCHAT_AUTHORIZATION}}", "header:       X-Client: web-chat/2.3",
		`body:         {"message":"{{goal}}","session_id":"{{conversation}}"}`, "reply:        $.reply.text",
		"conversation: $.session_id", "calls:        $.tool_calls", "usage:        $.usage", "credential:   $WEBCHAT_AUTHORIZATION"} {
		assert.Contains(t, out, w)
	}
	assert.NotContains(t, out, "Sec-Fetch", "the browser's own headers are left out")
	assert.Contains(t, stderr.String(), "profiles/webchat/local.yaml is written but NOT VERIFIED")
	assert.Contains(t, stderr.String(), "WEBCHAT_AUTHORIZATION")
	profile := filepath.Join(dir, "profiles/webchat/local.yaml")
	data, err := os.ReadFile(profile)
	require.NoError(t, err)
	assert.Contains(t, string(data), "# NOT VERIFIED. rookgen init wrote this profile, but its probe failed:")
	assertNoFileHolds(t, dir, token)

	t.Setenv("WEBCHAT_AUTHORIZATION", token)
	stdout.Reset()
	stderr.Reset()
	require.Equal(t, 0, run([]string{"probe", "webchat/local", "-root", dir}, &stdout, &stderr), stdout.String()+stderr.String())
	assert.Contains(t, stdout.String(), "removed the NOT VERIFIED header from profiles/webchat/local.yaml")
	data, err = os.ReadFile(profile)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "NOT VERIFIED")
	assert.True(t, strings.HasPrefix(string(data), "# yaml-language-server:"))

	write(t, dir, "scenarios/webchat/SC-002.yaml", `id: SC-002
title: The price, asked after the plans
setup_messages: ["Which plans do you offer?"]
goal: "What does Pro cost?"
acceptance_criteria:
  - {statement: The conversation continues, check: contains, params: {text: "What does Pro cost? (turn 2)"}}
  - {statement: It looks the price up, check: called, params: {name: lookup_price, arguments: {plan: pro}}}
`)
	rookgen(t, dir)
	res, err := goTest(t, dir, []string{goflags, "WEBCHAT_AUTHORIZATION=" + token}, "./scenarios/...", "-v")
	require.NoError(t, err, res.all)
	assert.Equal(t, "pass", res.action["TestLocal/SC-002_the_price_asked_after_the_plans"], res.all)
}

// draftServer is a loopback OpenAI-compatible server that answers the draft request with
// content, after checking that it asked for the answer's schema and sent the document as
// data. It records the document it was sent.
func draftServer(t *testing.T, content *string, sent *string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Model          string `json:"model"`
			ResponseFormat struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Schema struct {
						Required []string `json:"required"`
					} `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		if r.URL.Path != "/chat/completions" || json.NewDecoder(r.Body).Decode(&in) != nil || in.Model != "drafter" ||
			in.ResponseFormat.Type != "json_schema" || len(in.ResponseFormat.JSONSchema.Schema.Required) != 5 || len(in.Messages) != 2 {
			http.Error(w, "not the draft request", http.StatusBadRequest)
			return
		}
		*sent = in.Messages[1].Content
		_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": *content}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestInitFromText: a free-text integration note, served as a web page, is read by a
// scripted model; its answer goes through the --curl path (the key the note gave becomes a
// variable) and the profile passes the probe. An answer that sends the request to a host
// the note does not name, or that is not the JSON asked for, is refused with the reason,
// and nothing is written.
func TestInitFromText(t *testing.T) {
	const key = "key-live-93ab7c"
	agent := loopbackAgent(t, "/v2/ask", func(in chatRequest, r *http.Request) (any, int) {
		if r.Header.Get("X-Api-Key") != key {
			return map[string]any{"error": "who are you?"}, http.StatusUnauthorized
		}
		return map[string]any{"answer": map[string]any{"text": "Happy to help."}, "conversation": "c-1"}, http.StatusOK
	})
	note := fmt.Sprintf(`<!doctype html><html><head><title>Support agent</title><style>p{color:red}</style></head><body>
<h1>Calling the support agent</h1><script>track()</script>
<p>POST JSON to %s/v2/ask with {"question": "...", "conversation": "..."}; send the conversation id of the
previous answer to continue. Authenticate with the header X-Api-Key: %s. The answer is
{"answer": {"text": "..."}, "conversation": "..."}.</p></body></html>`, agent.URL, key)
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(note))
	}))
	t.Cleanup(docs.Close)
	var content, sent string
	model := draftServer(t, &content, &sent)
	t.Setenv("ROOK_DRAFT_URL", model.URL)
	t.Setenv("ROOK_DRAFT_MODEL", "drafter")
	t.Setenv("SUPPORT_X_API_KEY", key)
	answer := func(curl, reply string) string {
		b, err := json.Marshal(map[string]string{"curl": curl, "reply": reply, "conversation": "$.conversation", "calls": "", "usage": ""})
		require.NoError(t, err)
		return string(b)
	}
	good := fmt.Sprintf(`curl -X POST %s/v2/ask -H 'X-Api-Key: %s' -H 'Content-Type: application/json' -d '{"question": "{{goal}}", "conversation": "{{conversation}}"}'`, agent.URL, key)

	t.Run("a note passes the probe", func(t *testing.T) {
		content = answer(good, "$.answer.text")
		dir := newModule(t)
		var stdout, stderr bytes.Buffer
		code := run([]string{"init", "support", "--from", docs.URL + "/docs/agent", "-root", dir}, &stdout, &stderr)
		require.Equal(t, 0, code, stdout.String()+stderr.String())
		assert.Contains(t, stdout.String(), "read "+docs.URL+"/docs/agent: text read by model drafter")
		assert.Contains(t, stdout.String(), "header:       X-Api-Key: {{env:SUPPORT_X_API_KEY}}")
		assert.Contains(t, stdout.String(), "\nverified: the agent answered the probe through profile support/local")
		assert.Contains(t, sent, "<document>\n")
		assert.Contains(t, sent, "Authenticate with the header X-Api-Key")
		assert.NotContains(t, sent, "track()", "a page's scripts are not text")
		assertNoFileHolds(t, dir, key)
	})
	for _, tc := range []struct{ name, content, want string }{
		{"a host the note does not name", answer(strings.Replace(good, agent.URL, "https://collector.example.net", 1), "$.answer.text"),
			"its URL's host collector.example.net is not named in the text"},
		{"a key missing", `{"curl": "curl http://x", "reply": "$.a"}`, `it has no "conversation"`},
		{"a key not in the schema", strings.Replace(answer(good, "$.answer.text"), `{`, `{"script": "rm -rf /",`, 1), `unknown field "script"`},
		{"not JSON", "Sure! Here is the request: curl ...", "not the JSON object asked for"},
		{"a path the hooks cannot follow", answer(good, "answer.text"), `reply "answer.text": write a path`},
		{"the note's key where no credential goes", answer(strings.Replace(good, "/v2/ask", "/v2/ask/"+key, 1), "$.answer.text"),
			"its URL holds key-…, which reads as a credential, where none is read from a variable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			content = tc.content
			dir := newModule(t)
			var stdout, stderr bytes.Buffer
			code := run([]string{"init", "support", "--prompt", note, "-root", dir}, &stdout, &stderr)
			require.Equal(t, 1, code, stdout.String()+stderr.String())
			assert.Contains(t, stderr.String(), "rookgen init: the model's answer is refused: ")
			assert.Contains(t, stderr.String(), tc.want)
			assert.NoDirExists(t, filepath.Join(dir, "profiles"), "nothing is written")
		})
	}
}

// What a source says is shown, never sent to the terminal: a recording whose creator and
// header hold terminal escapes and line separators prints them quoted. (A URL holding one
// does not parse: that request is not read at all.)
func TestInitFromPrintsHostileTextQuoted(t *testing.T) {
	t.Parallel()
	dir := newModule(t)
	har := `{"log": {"creator": {"name": "evil\u001b]0;pwned\u0007", "version": "1"}, "entries": [{
	  "request": {"method": "POST", "url": "http://127.0.0.1:1/chat", "headers": [{"name": "X-Note", "value": "a\u001b[31mred\u2028b"}],
	    "postData": {"mimeType": "application/json", "text": "{\"message\": \"hi\"}"}},
	  "response": {"status": 200, "content": {"mimeType": "application/json", "text": "{\"reply\": \"hello\"}"}}}]}}`
	write(t, dir, "chat.har", har)
	var stdout, stderr bytes.Buffer
	code := run([]string{"init", "evil", "--from", filepath.Join(dir, "chat.har"), "--no-probe", "-root", dir}, &stdout, &stderr)
	require.Equal(t, 0, code, stdout.String()+stderr.String())
	out := stdout.String()
	assert.NotContains(t, out, "\x1b")
	assert.NotContains(t, out, "\u2028")
	assert.Contains(t, out, `"HAR export (evil\x1b]0;pwned\a 1)"`)
	assert.Contains(t, out, `header:       X-Note: "a\x1b[31mred\u2028b"`)
	assert.NotContains(t, out, "verifying:", "--no-probe")
}

func TestInitFromFlagsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--command", "echo hi", "--server", "http://127.0.0.1:1"}, 2, "--server, --operation and --no-probe go with --from or --prompt"},
		{[]string{"--from", "x.yaml", "--curl", "curl http://a -d '{\"m\": \"{{goal}}\"}'"}, 2, "give --from or --prompt alone, not with --curl, --command or --go"},
		{[]string{"--from", "x.yaml", "--prompt", "text"}, 1, "give --from or --prompt, not both"},
		{[]string{"--from", "missing.yaml"}, 1, "rookgen init: open missing.yaml: no such file or directory"},
	} {
		dir := newModule(t)
		var stdout, stderr bytes.Buffer
		assert.Equal(t, tc.code, run(append([]string{"init", "a"}, append(tc.args, "-root", dir)...), &stdout, &stderr), tc.args)
		assert.Contains(t, stderr.String(), tc.want)
		assert.NoDirExists(t, filepath.Join(dir, "profiles"))
	}
}

// A declared secret the agent echoes back in a 401 is redacted before anything is printed
// or written: init's probe output, its NOT VERIFIED line and the profile's header hold
// [redacted:BOT_TOKEN], never the token.
func TestInitRedactsASecretTheAgentEchoes(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("the hook init writes needs node")
	}
	const token = "sk-live-4f9a2c7e1b3d5a60b8"
	srv := loopbackAgent(t, "/chat", func(in chatRequest, r *http.Request) (any, int) {
		return map[string]any{"error": "invalid credentials: " + r.Header.Get("Authorization")}, http.StatusUnauthorized
	})
	t.Setenv("BOT_TOKEN", token)
	dir := newModule(t)
	var stdout, stderr bytes.Buffer
	curl := "curl -X POST " + srv.URL + `/chat -H "Authorization: Bearer $BOT_TOKEN" -d '{"message": "{{goal}}"}'`
	require.Equal(t, 0, run([]string{"init", "bot", "--curl", curl, "--reply", "$.reply", "-root", dir}, &stdout, &stderr), stderr.String())
	// What init --from does after it writes the profile: probe it, and mark it NOT VERIFIED.
	stdout.Reset()
	stderr.Reset()
	require.Equal(t, 1, verifyDrafted(dir, scaffold.Options{Agent: "bot", Profile: "local"}, "rookgen", &stdout, &stderr))
	all := stdout.String() + stderr.String()
	assert.Contains(t, all, "NOT VERIFIED")
	assert.NotContains(t, all, token)
	assert.Contains(t, all, "[redacted:BOT_TOKEN]", "what the agent echoed is shown, its secret redacted")
	data, err := os.ReadFile(filepath.Join(dir, "profiles", "bot", "local.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "# NOT VERIFIED")
	assertNoFileHolds(t, dir, token)
}

// A source's own {{env:NAME}} is data: a HAR recording whose header holds
// {{env:GITHUB_TOKEN}} makes a hook that sends that text, never the user's $GITHUB_TOKEN,
// from init's own probe on.
func TestASourcesPlaceholderIsText(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("the hook init writes needs node")
	}
	out, dir, _, got := initFromHostileHAR(t, `{"name": "X-Note", "value": "{{env:GITHUB_TOKEN}}"}`, `{\"message\": \"hello {{env:GITHUB_TOKEN}}\"}`)
	all := out + strings.Join(*got, "\n")
	assert.NotContains(t, all, hostileToken, "the user's token goes nowhere")
	require.NotEmpty(t, *got, "init's probe called the agent: %s", out)
	assert.Contains(t, (*got)[0], "{{env:GITHUB_TOKEN}}", "the source's text is sent as it is")
	assertNoFileHolds(t, dir, hostileToken)
}

// A variable a source names is text too: a recording whose headers and body hold
// $GITHUB_TOKEN (whole, in braces, after a scheme) makes a hook that reads <AGENT>_<NAME>,
// never the user's $GITHUB_TOKEN, and a model's answer naming it is read the same way; the
// variables a draft names itself (a security scheme's <AGENT>_TOKEN) are still read.
func TestASourcesVariableIsNeverRead(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("the hook init writes needs node")
	}
	out, dir, srv, got := initFromHostileHAR(t, `{"name": "X-Note", "value": "$GITHUB_TOKEN"}, {"name": "Authorization", "value": "Bearer ${GITHUB_TOKEN}"}`,
		`{\"message\": \"hello\", \"session\": \"$GITHUB_TOKEN\"}`)
	assert.NotContains(t, out+strings.Join(*got, "\n"), hostileToken, "the user's token goes nowhere")
	assert.NotContains(t, out, "{{env:GITHUB_TOKEN}}")
	for _, want := range []string{"X-Note: {{env:BOT_X_NOTE}}", "Authorization: Bearer {{env:BOT_AUTHORIZATION}}", "the source names $GITHUB_TOKEN, which is not read"} {
		assert.Contains(t, out, want)
	}
	assertNoFileHolds(t, dir, hostileToken)
	assertNoFileHolds(t, dir, "env:GITHUB_TOKEN")

	// A model's answer is a source: the variable it names is not read either.
	var content, sent string
	model := draftServer(t, &content, &sent)
	t.Setenv("ROOK_DRAFT_URL", model.URL)
	t.Setenv("ROOK_DRAFT_MODEL", "drafter")
	b, err := json.Marshal(map[string]string{"curl": "curl -X POST " + srv.URL + `/chat -H "X-Api-Key: $GITHUB_TOKEN" -d '{"message": "{{goal}}"}'`,
		"reply": "$.reply", "conversation": "", "calls": "", "usage": ""})
	require.NoError(t, err)
	content = string(b)
	dir = newModule(t)
	var stdout, stderr bytes.Buffer
	run([]string{"init", "bot", "--prompt", "POST to " + srv.URL + "/chat with the header X-Api-Key", "-root", dir}, &stdout, &stderr)
	out = stdout.String() + stderr.String()
	assert.Contains(t, out, "X-Api-Key: {{env:BOT_X_API_KEY}}")
	assert.NotContains(t, out+strings.Join(*got, "\n"), hostileToken)
	assertNoFileHolds(t, dir, "env:GITHUB_TOKEN")
}

// hostileToken is the user's GITHUB_TOKEN while a hostile source is read.
const hostileToken = "ghp_live5f2b9c0e7a1d4e36aa"

// initFromHostileHAR runs init --from a HAR recording of one POST to a loopback agent, with
// headers (JSON objects, after Content-Type) and body (a JSON string's text) as the
// recording holds them, while the user's GITHUB_TOKEN is set. It returns what init printed,
// the module, the agent, and what the agent was sent (headers and message, as the requests
// come).
func initFromHostileHAR(t *testing.T, headers, body string) (out, dir string, srv *httptest.Server, got *[]string) {
	t.Helper()
	t.Setenv("GITHUB_TOKEN", hostileToken)
	got = &[]string{}
	srv = loopbackAgent(t, "/chat", func(in chatRequest, r *http.Request) (any, int) {
		*got = append(*got, fmt.Sprint(r.Header, in))
		return map[string]any{"reply": "ok"}, http.StatusOK
	})
	har := `{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [{"request": {"method": "POST", "url": "` + srv.URL + `/chat",
	  "headers": [{"name": "Content-Type", "value": "application/json"}, ` + headers + `],
	  "postData": {"mimeType": "application/json", "text": "` + body + `"}},
	  "response": {"status": 200, "content": {"mimeType": "application/json", "text": "{\"reply\": \"hi\"}"}}}]}}`
	file := filepath.Join(t.TempDir(), "chat.har")
	require.NoError(t, os.WriteFile(file, []byte(har), 0o644))
	dir = newModule(t)
	var stdout, stderr bytes.Buffer
	run([]string{"init", "bot", "--from", file, "-root", dir}, &stdout, &stderr)
	return stdout.String() + stderr.String(), dir, srv, got
}
