package draft

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/rookgen/internal/scaffold"
)

func read(t *testing.T, path string, o Options) *Draft {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	d, ok, err := Read(path, data, o)
	require.True(t, ok, "a structured source")
	require.NoError(t, err)
	return d
}

// TestReadsPublicDocuments: the chat operation of each real document is chosen over the
// others that take text, with the document's own values for what it requires.
func TestReadsPublicDocuments(t *testing.T) {
	d := read(t, "testdata/ollama.openapi.yaml", Options{Agent: "ollama"})
	assert.Equal(t, "POST /api/chat (operation chat)", d.Chose)
	assert.Equal(t, `curl -X POST 'http://localhost:11434/api/chat' -H 'Accept: application/json' -H 'Content-Type: application/json' -d '{"messages":[{"content":"{{goal}}","role":"user"}],"model":"gemma3","stream":false}'`, d.Curl)
	assert.Equal(t, []string{"$.message.content", "", "$.message.tool_calls", ""}, []string{d.Reply, d.Conversation, d.Calls, d.Usage})

	d = read(t, "testdata/openai.openapi.json", Options{Agent: "openai"})
	assert.Equal(t, "POST /chat/completions (operation createChatCompletion)", d.Chose)
	assert.Contains(t, d.Curl, `'https://api.openai.com/v1/chat/completions'`)
	assert.Contains(t, d.Curl, `"model":"<model>"`)
	assert.Equal(t, "$.choices[0].message.content", d.Reply)
	assert.Equal(t, "$.usage", d.Usage)
	assert.Contains(t, strings.Join(d.Notes, "\n"), "also possible: POST /completions, POST /answers")

	d = read(t, "testdata/ollama.openapi.yaml", Options{Agent: "ollama", Operation: "POST /api/generate", Server: "http://127.0.0.1:1"})
	assert.Equal(t, `curl -X POST 'http://127.0.0.1:1/api/generate' -H 'Accept: application/json' -H 'Content-Type: application/json' -d '{"model":"gemma3","prompt":"{{goal}}","stream":false}'`, d.Curl)
	assert.Equal(t, "$.response", d.Reply)
}

func TestRefusesWhatItCannotUse(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"no chat operation", `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "servers": [{"url": "http://a"}],
		  "paths": {"/embed": {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {"input": {"type": "string"}}}}}},
		  "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object", "properties": {"vector": {"type": "array", "items": {"type": "number"}}}}}}}}}}}}`,
			"no operation takes a message"},
		{"no server", strings.Replace(askDoc, `"servers": [{"url": "https://agent.example.com/v1"}],`, "", 1), "names no server: give the agent's base URL with --server"},
		{"relative server", strings.Replace(askDoc, "https://agent.example.com/v1", "/v1", 1), `server "/v1" is not an http:// or https:// URL`},
		{"a HAR with no message", `{"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "http://a/", "headers": []},
		  "response": {"status": 200, "content": {"mimeType": "text/html", "text": "<p>hi"}}}]}}`, "none of its 1 recorded requests sends a message"},
		{"an unknown operation", askDoc, `--operation "nope" is none of the operations that take a message: POST /ask`},
		{"an unknown operation beside a hostile path", strings.Replace(askDoc, `"/ask"`, `"/ask\u001b]0;pwned\u0007"`, 1),
			`--operation "nope" is none of the operations that take a message: POST "/ask\x1b]0;pwned\a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ok, err := Read("doc.json", []byte(tc.doc), Options{Agent: "a", Operation: map[bool]string{true: "nope"}[strings.HasPrefix(tc.name, "an unknown operation")]})
			assert.True(t, ok)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), "doc.json: "), err.Error())
		})
	}
	for _, tc := range []struct{ doc, want string }{
		{"{\"openapi\": \"3.0.3\",\n  \"paths\": {,}}", "doc.json: read it as JSON: line 2, column 13: invalid character ','"},
		{"openapi: 3.1.0\npaths:\n  /a: [\n", "doc.json: read it as an OpenAPI document in YAML: yaml: line 3: did not find expected node content"},
	} {
		_, ok, err := Read("doc.json", []byte(tc.doc), Options{})
		assert.True(t, ok, "meant as a document")
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.want)
	}
	for _, text := range []string{"# How to call our agent\n\nPOST to /ask.", "- a\n- list", "just: a mapping"} {
		_, ok, err := Read("note.md", []byte(text), Options{})
		assert.False(t, ok, "%q is free text", text)
		assert.NoError(t, err)
	}
}

// askDoc is an agent API with a two-key message, a conversation id in and out, a
// recursive schema and two security alternatives.
const askDoc = `{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "servers": [{"url": "https://agent.example.com/v1"}],
 "security": [{"oauth": ["chat"]}, {"key": []}],
 "components": {"securitySchemes": {"oauth": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://a/token", "scopes": {"chat": "c"}}}},
   "key": {"type": "apiKey", "in": "query", "name": "api_key"}},
  "schemas": {"Node": {"type": "object", "properties": {"child": {"$ref": "#/components/schemas/Node"}, "note": {"type": "string"}}}}},
 "paths": {"/ask": {"post": {"requestBody": {"content": {"application/json; charset=utf-8": {"schema": {"type": "object", "required": ["input", "tenant", "api_token"],
    "properties": {"input": {"type": "object", "properties": {"text": {"type": "string"}}}, "tenant": {"type": "string", "enum": ["acme", "other"]},
      "api_token": {"type": "string", "example": "tok-example-1"},
      "session_id": {"type": "string"}, "tree": {"$ref": "#/components/schemas/Node"}}}}}},
  "responses": {"201": {"description": "ok", "content": {"application/json": {"schema": {"allOf": [
    {"type": "object", "properties": {"session_id": {"type": "string"}, "tree": {"$ref": "#/components/schemas/Node"}}},
    {"type": "object", "properties": {"output": {"type": "object", "properties": {"answer": {"type": "string"}, "model": {"type": "string"}}}}}]}}}}}}}}}`

func TestReadsAnAgentAPI(t *testing.T) {
	d, ok, err := Read("doc.json", []byte(askDoc), Options{Agent: "help-desk"})
	require.True(t, ok)
	require.NoError(t, err)
	assert.Equal(t, `curl -X POST 'https://agent.example.com/v1/ask' -H 'Accept: application/json' -H 'Content-Type: application/json' -H "Authorization: Bearer $HELP_DESK_TOKEN" -d '{"api_token":"tok-example-1","input":{"text":"{{goal}}"},"session_id":"{{conversation}}","tenant":"acme"}'`, d.Curl)
	assert.Equal(t, "$.output.answer", d.Reply)
	assert.Equal(t, "$.session_id", d.Conversation)
	notes := strings.Join(d.Notes, "\n")
	assert.Contains(t, notes, "auth: oauth (a bearer token from its oauth2 flow), read from $HELP_DESK_TOKEN")
	assert.Contains(t, notes, `tenant: "acme" (required), from the document's schema`)
	assert.Contains(t, notes, "api_token: a credential (required), read from a variable rather than written")
	assert.NotContains(t, notes, "tok-example-1")
	r, err := scaffold.ParseCurl("help-desk", d.Curl)
	require.NoError(t, err)
	assert.Contains(t, r.Body, `"api_token":"{{env:HELP_DESK_API_TOKEN}}"`)
}

func TestSecuritySchemes(t *testing.T) {
	for _, tc := range []struct{ scheme, want, env string }{
		{`{"type": "http", "scheme": "bearer"}`, `-H "Authorization: Bearer $A_TOKEN"`, "A_TOKEN"},
		{`{"type": "http", "scheme": "basic"}`, `-H "Authorization: Basic $A_BASIC"`, "A_BASIC"},
		{`{"type": "apiKey", "in": "header", "name": "X-Tenant-Code"}`, `-H "X-Tenant-Code: $A_API_KEY"`, "A_API_KEY"},
		{`{"type": "apiKey", "in": "query", "name": "code"}`, `"https://agent.example.com/v1/ask?code=$A_API_KEY"`, "A_API_KEY"},
		{`{"type": "apiKey", "in": "cookie", "name": "sid"}`, `-H "Cookie: sid=$A_COOKIE"`, "A_COOKIE"},
	} {
		doc := strings.Replace(askDoc, `"security": [{"oauth": ["chat"]}, {"key": []}]`, `"security": [{"s": []}]`, 1)
		doc = strings.Replace(doc, `"securitySchemes": {`, `"securitySchemes": {"s": `+tc.scheme+`, `, 1)
		d, _, err := Read("doc.json", []byte(doc), Options{Agent: "a"})
		require.NoError(t, err)
		assert.Contains(t, d.Curl, tc.want)
		// init --curl reads the credential from its variable, whatever the scheme names it.
		r, err := scaffold.ParseCurl("a", d.Curl)
		require.NoError(t, err)
		var envs []string
		for _, s := range r.Secrets {
			envs = append(envs, s.Env)
		}
		assert.Equal(t, []string{tc.env, "A_API_TOKEN"}, envs, "the cookie header's variable holds sid=<the key>, as the note says")
		assert.NotContains(t, r.URL+fmt.Sprint(r.Headers), "$A_")
	}
	doc := strings.Replace(askDoc, `"security": [{"oauth": ["chat"]}, {"key": []}]`, `"security": [{}, {"key": []}]`, 1)
	d, _, err := Read("doc.json", []byte(doc), Options{Agent: "a"})
	require.NoError(t, err)
	assert.NotContains(t, d.Curl, "$A_")
	assert.Contains(t, strings.Join(d.Notes, "\n"), "auth: none (the document makes a credential optional)")
}

func TestLoadBoundsASource(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	require.NoError(t, os.WriteFile(big, make([]byte, maxSource+1), 0o644))
	_, _, err := Load(context.Background(), big)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "over 8 MiB")

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/gone":
			http.Error(w, "gone", http.StatusGone)
		case "/file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/metadata":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/private":
			http.Redirect(w, r, "http://10.0.0.7/docs", http.StatusFound)
		case "/hop1", "/hop2", "/hop3", "/hop4", "/hop5", "/hop6":
			n := int(r.URL.Path[4] - '0')
			next := fmt.Sprintf("/hop%d", n+1)
			if n == 5 {
				next = "/docs" // the fifth redirect, which is allowed
			}
			if r.URL.Query().Get("six") != "" {
				next = fmt.Sprintf("/hop%d?six=1", n+1)
				if n == 6 {
					next = "/docs?six=1"
				}
			}
			http.Redirect(w, r, next, http.StatusFound)
		default:
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html><head><script>steal()</script></head><body><p>POST to&nbsp;/ask</p><style>x{}</style></body></html>"))
		}
	}))
	defer srv.Close()
	_, _, err = Load(context.Background(), srv.URL+"/gone")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HTTP 410")
	_, _, err = Load(context.Background(), srv.URL+"/file")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not http or https")
	data, mediaType, err := Load(context.Background(), srv.URL+"/docs")
	require.NoError(t, err)
	assert.Equal(t, "POST to\u00a0/ask", Text(data, mediaType))

	// A redirect keeps to the first URL's class of address: from loopback, not to a
	// link-local (a cloud's metadata service) or a private one.
	for _, path := range []string{"/metadata", "/private"} {
		_, _, err = Load(context.Background(), srv.URL+path)
		require.Error(t, err, path)
		assert.Contains(t, err.Error(), "a fetch keeps to its first URL's kind of address", path)
	}
	// Five redirects are allowed, as the docs say; a sixth is not.
	_, _, err = Load(context.Background(), srv.URL+"/hop1")
	require.NoError(t, err)
	_, _, err = Load(context.Background(), srv.URL+"/hop1?six=1")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stopped after 5 redirects")
}

// A generated Postman collection: its URL is built from host and path on a variable, and
// its stand-in values are left out, and said, rather than sent.
func TestReadsAPostmanCollection(t *testing.T) {
	d := read(t, "testdata/ollama.postman.json", Options{Agent: "ollama", Server: "http://127.0.0.1:1"})
	assert.Equal(t, `Postman collection "Ollama API"`, d.Kind)
	assert.Equal(t, `curl -X POST 'http://127.0.0.1:1/api/chat' -H 'Content-Type: application/json' -d '{"format":"json","messages":[{"content":"{{goal}}","role":"user"}],"stream":false}'`, d.Curl)
	assert.Equal(t, []string{"$.message.content", "", "$.message.tool_calls", ""}, []string{d.Reply, d.Conversation, d.Calls, d.Usage})
	assert.Contains(t, strings.Join(d.Notes, "\n"), "left out keep_alive, logprobs, model, options, think, tools, top_logprobs: their values are stand-ins like <string>")

	collection := `{"info": {"name": "Support", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
	 "variable": [{"key": "base", "value": "https://support.example.com"}, {"key": "apiKey", "value": ""}],
	 "auth": {"type": "apikey", "apikey": [{"key": "key", "value": "X-Support-Key"}, {"key": "value", "value": "{{apiKey}}"}, {"key": "in", "value": "header"}]},
	 "item": [{"name": "Folder", "item": [{"name": "Ask", "request": {"method": "POST", "url": "{{base}}/v1/ask",
	   "header": [{"key": "X-Tenant", "value": "{{tenant}}"}, {"key": "X-Debug", "value": "1", "disabled": true}],
	   "body": {"mode": "raw", "raw": "{\"question\": \"Where is my parcel?\", \"thread_id\": \"{{thread}}\"}"}},
	  "response": [{"code": 500, "body": "{}"}, {"code": 200, "body": "{\"answer\": \"It ships today.\", \"thread_id\": \"t-1\"}"}]}]}]}`
	d, ok, err := Read("support.json", []byte(collection), Options{Agent: "support"})
	require.True(t, ok)
	require.NoError(t, err)
	assert.Equal(t, `curl -X POST 'https://support.example.com/v1/ask' -H "X-Tenant: $SUPPORT_X_TENANT" -H "X-Support-Key: $SUPPORT_API_KEY" -d '{"question":"{{goal}}","thread_id":"{{conversation}}"}'`, d.Curl)
	assert.Equal(t, "$.answer", d.Reply)
	assert.Equal(t, "$.thread_id", d.Conversation)
	assert.Contains(t, strings.Join(d.Notes, "\n"), "variables without a value, read from the environment: $SUPPORT_X_TENANT, $SUPPORT_API_KEY")
	assert.NotContains(t, strings.Join(d.Notes, "\n"), "SUPPORT_THREAD", "the thread is the conversation, not a variable")
}

// The request sent most often is the one, unless --operation names another; a message in
// the query is sent there.
func TestHARPicksTheRequest(t *testing.T) {
	entry := func(method, url, body, res string) string {
		post := ""
		if body != "" {
			post = fmt.Sprintf(`, "postData": {"mimeType": "application/json", "text": %q}`, body)
		}
		return fmt.Sprintf(`{"request": {"method": %q, "url": %q, "headers": [{"name": "Accept-Encoding", "value": "gzip"}]%s},
		  "response": {"status": 200, "content": {"mimeType": "application/json", "encoding": "base64", "text": %q}}}`,
			method, url, post, base64.StdEncoding.EncodeToString([]byte(res)))
	}
	har := `{"log": {"entries": [` + strings.Join([]string{
		entry("GET", "https://a.example/search?q=plans&lang=en", "", `{"answer": "Basic and Pro."}`),
		entry("POST", "https://a.example/api/chat", `{"message": "hi"}`, `{"reply": "hello"}`),
		entry("GET", "https://a.example/search?q=prices&lang=en", "", `{"answer": "12 EUR."}`),
	}, ",") + `]}}`
	d, ok, err := Read("x.har", []byte(har), Options{Agent: "a"})
	require.True(t, ok)
	require.NoError(t, err)
	assert.Equal(t, "GET /search", d.Chose)
	assert.Equal(t, `curl -X GET 'https://a.example/search?lang=en&q={{goal}}'`, d.Curl)
	assert.Equal(t, "$.answer", d.Reply)

	d, _, err = Read("x.har", []byte(har), Options{Agent: "a", Operation: "POST /api/chat"})
	require.NoError(t, err)
	assert.Equal(t, `curl -X POST 'https://a.example/api/chat' -d '{"message":"{{goal}}"}'`, d.Curl)

	_, _, err = Read("x.har", []byte(har), Options{Agent: "a", Operation: "/nope"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--operation "/nope" is none of the recorded requests that send a message: GET /search, POST /api/chat`)
}

// A document's $ref to another file or URL is refused, never fetched.
func TestExternalRefsAreNotFetched(t *testing.T) {
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		_, _ = w.Write([]byte(`{"type": "object", "properties": {"reply": {"type": "string"}}}`))
	}))
	defer srv.Close()
	for _, ref := range []string{srv.URL + "/schema.json", "/etc/passwd", "other.yaml#/Reply"} {
		doc := strings.Replace(askDoc, `"#/components/schemas/Node"}, "note"`, `"`+ref+`"}, "note"`, 1)
		_, ok, err := Read("doc.json", []byte(doc), Options{Agent: "a"})
		assert.True(t, ok)
		require.Error(t, err, ref)
		assert.Contains(t, err.Error(), "read the OpenAPI document")
	}
	assert.Zero(t, hits)
}

// A Swagger 2 document is converted, its host and basePath the server.
func TestReadsSwagger2(t *testing.T) {
	doc := `swagger: "2.0"
info: {title: bot, version: "1"}
host: bot.example.com
basePath: /api
schemes: [https]
securityDefinitions:
  key: {type: apiKey, in: header, name: X-Bot-Key}
security: [{key: []}]
paths:
  /talk:
    post:
      consumes: [application/json]
      produces: [application/json]
      parameters:
        - {in: body, name: body, required: true, schema: {type: object, required: [input], properties: {input: {type: string}}}}
      responses:
        "200": {description: ok, schema: {type: object, properties: {output: {type: string}}}}
`
	d, ok, err := Read("bot.yaml", []byte(doc), Options{Agent: "bot"})
	require.True(t, ok)
	require.NoError(t, err)
	assert.Equal(t, "OpenAPI 2 (Swagger 2.0) document", d.Kind)
	assert.Equal(t, `curl -X POST 'https://bot.example.com/api/talk' -H 'Accept: application/json' -H 'Content-Type: application/json' -H "X-Bot-Key: $BOT_API_KEY" -d '{"input":"{{goal}}"}'`, d.Curl)
	assert.Equal(t, "$.output", d.Reply)
}
