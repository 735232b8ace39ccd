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
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// specialGoal holds what String.replace patterns, printf verbs and a second placeholder
// would change, as YAML; specialReply is the echo of it the agent must give.
const (
	specialGoal  = `'Refund $$5 $& $'' $1 %s {{conversation}} please'`
	specialReply = `'you said: Refund $$5 $& $'' $1 %s {{conversation}} please'`
)

// TestInitThenGoTest is a user's first five minutes: init in a fresh module, for a command
// line agent, with a node and with a python hook, then go test ./scenarios/... is green,
// and a second init refuses to overwrite anything.
func TestInitThenGoTest(t *testing.T) {
	t.Parallel() // waits on builds and hooks more than it computes
	if testing.Short() {
		t.Skip("builds and runs generated packages")
	}
	tests := []struct {
		name, lang, command string
	}{
		// The message as an argument, through sh's $1 (never pasted into the script).
		{name: "node-argument", lang: "node", command: `sh -c 'echo "you said: $1"' sh {{goal}}`},
		// Without {{goal}}, the message comes on the command's stdin; a path relative to the
		// module root (where init runs) works, as the agent is run there.
		{name: "python-stdin", lang: "python", command: `./bin/echo-agent`},
		{name: "go-argument", lang: "go", command: `sh -c 'echo "you said: $1"' sh {{goal}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.lang == "python" {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("needs python3")
				}
			}
			dir := newModule(t)
			write(t, dir, "bin/echo-agent", "#!/bin/sh\nsed 's/^/you said: /'\n")
			require.NoError(t, os.Chmod(filepath.Join(dir, "bin/echo-agent"), 0o755))
			var stdout, stderr bytes.Buffer
			code := run([]string{"init", "helper", "--command", tc.command, "--lang", tc.lang, "-root", dir}, &stdout, &stderr)
			require.Equal(t, 0, code, stderr.String())
			assert.Contains(t, stdout.String(), "in the module root (ROOK_WORKSPACE), as you would: a relative path in it is relative to the module root")
			hook := map[string]string{"node": "helper.mjs", "python": "helper.py", "go": "helper/main.go"}[tc.lang]
			for _, f := range []string{"profiles/helper/local.yaml", "profiles/helper/hooks/" + hook, "scenarios/helper/SC-001.yaml",
				"scenarios/doc.go", ".gitignore", "scenarios/helper/local_rook_test.go"} {
				assert.FileExists(t, filepath.Join(dir, f))
				assert.Contains(t, stdout.String(), "wrote "+f, "init names every file it wrote")
			}
			assert.Contains(t, stdout.String(), "next:\n  go mod tidy ")
			assert.Contains(t, stdout.String(), "\n  go run github.com/rookgo/rookgo/rookgen probe helper/local ")
			assert.Contains(t, stdout.String(), "\n  go test ./scenarios/helper ")

			// The message passes byte for byte: no replacement pattern or placeholder in it is read.
			write(t, dir, "scenarios/helper/SC-002.yaml", "id: SC-002\ntitle: Special\ngoal: "+specialGoal+"\nacceptance_criteria:\n"+
				"  - {statement: s, check: contains, params: {text: "+specialReply+", case_sensitive: true}}\n")
			rookgen(t, dir)

			var probeOut, probeErr bytes.Buffer
			require.Equal(t, 0, run([]string{"probe", "helper/local", "-root", dir}, &probeOut, &probeErr), probeOut.String()+probeErr.String())
			assert.Contains(t, probeOut.String(), "execute: ok in ")
			assert.Contains(t, probeOut.String(), `you said: Hello! This is a connection check`)

			res, err := goTest(t, dir, []string{goflags}, "./scenarios/...", "-v")
			require.NoError(t, err, res.all)
			assert.Equal(t, "pass", res.action["TestLocal/SC-001_the_agent_answers"], res.all)
			assert.Equal(t, "pass", res.action["TestLocal/SC-002_special"], res.output["TestLocal/SC-002_special/C1_contains_you_said_refund_5_and_conversation_please"])
			assert.Contains(t, res.all, "2 passed, 0 failed")
			records, err := filepath.Glob(filepath.Join(dir, ".rook/runs/helper/*/scenarios/SC-001/response.json"))
			require.NoError(t, err)
			require.Len(t, records, 1)
			response, err := os.ReadFile(records[0])
			require.NoError(t, err)
			assert.Contains(t, string(response), `"output": "you said: Hello! What can you help me with?"`)

			before, err := os.ReadFile(filepath.Join(dir, "scenarios/helper/SC-001.yaml"))
			require.NoError(t, err)
			stdout.Reset()
			stderr.Reset()
			code = run([]string{"init", "helper", "--command", "other", "-root", dir}, &stdout, &stderr)
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr.String(), "profiles/helper/local.yaml already exists: agent helper has a profile local; give another --profile")
			after, err := os.ReadFile(filepath.Join(dir, "scenarios/helper/SC-001.yaml"))
			require.NoError(t, err)
			assert.Equal(t, before, after)
			assert.Empty(t, stdout.String())
			gitignore, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
			require.NoError(t, err)
			assert.Equal(t, 1, strings.Count(string(gitignore), "/.rook/"))
		})
	}
}

// The credentials the cURL line of TestInitFromCurl holds besides its bearer token.
const (
	apiKey    = "ak-7f3e9c21"
	bodyToken = "bt-55d0a9e4"
	session   = "xs-19c4be70"
)

// chatAgent is an HTTP agent on loopback: it wants a bearer token, answers
// {"message", "session"} with the reply, the session id, a tool call and token usage, and
// counts the turns of each session.
// agentTime is how long the chat agent takes to answer.
const agentTime = 50 * time.Millisecond

func chatAgent(t *testing.T, token string) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	turns := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Message, Token string
			Session        *string
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if in.Session != nil && *in.Session == "" {
			// A strict API refuses an empty id: the first turn must leave the field out.
			http.Error(w, "session: an empty id is not a session", http.StatusBadRequest)
			return
		}
		sessionID := ""
		if in.Session != nil {
			sessionID = *in.Session
		}
		// Every credential the cURL line held arrives, read from its variable.
		if r.Header.Get("Authorization") != "Bearer "+token || r.URL.Query().Get("api_key") != apiKey ||
			in.Token != bodyToken || r.Header.Get("X-Session") != session {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		if sessionID == "" {
			sessionID = fmt.Sprintf("s-%d", len(turns)+1)
		}
		turns[sessionID]++
		n := turns[sessionID]
		mu.Unlock()
		time.Sleep(agentTime) // the agent thinks
		w.Header().Set("Content-Type", "application/json")
		answer := map[string]any{
			"data":       map[string]any{"reply": fmt.Sprintf("you said: %s (turn %d)", in.Message, n), "session_id": sessionID},
			"tool_calls": []any{map[string]any{"function": map[string]any{"name": "lookup", "arguments": `{"q": "orders"}`}}},
			"usage":      map[string]any{"prompt_tokens": 5, "completion_tokens": 7},
		}
		if strings.Contains(in.Message, "quietly") {
			// An answer that leaves its tool calls and its output count out.
			delete(answer, "tool_calls")
			answer["usage"] = map[string]any{"prompt_tokens": 5}
		}
		_ = json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestInitFromCurl: init from a cURL command against a loopback HTTP agent, with the
// reply, conversation, calls and usage located in its response; the credential header is
// read from a variable, never written; a second scenario of two turns continues the
// conversation and grades the calls and the usage.
func TestInitFromCurl(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	if testing.Short() {
		t.Skip("builds and runs generated packages")
	}
	const token = "sk-test-4f8a2c"
	for _, lang := range []string{"node", "python", "go"} {
		t.Run(lang, func(t *testing.T) {
			if lang == "python" {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("needs python3")
				}
			}
			srv := chatAgent(t, token)
			dir := newModule(t)
			curl := fmt.Sprintf(`curl -sS -X POST '%s/chat?api_key=%s' -H 'Authorization: Bearer %s' -H 'X-Session: %s' -H 'Content-Type: application/json' -d '{"message": "{{goal}}", "session": "{{conversation}}", "token": "%s"}'`,
				srv.URL, apiKey, token, session, bodyToken)
			var stdout, stderr bytes.Buffer
			code := run([]string{"init", "shop", "--curl", curl, "--reply", "$.data.reply", "--conversation", "$.data.session_id",
				"--calls", "$.tool_calls", "--usage", "$.usage", "--lang", lang, "-root", dir}, &stdout, &stderr)
			require.Equal(t, 0, code, stderr.String())
			assert.Contains(t, stdout.String(), "set SHOP_AUTHORIZATION to its value")
			// No file init wrote holds a credential.
			require.FileExists(t, filepath.Join(dir, "profiles/shop/hooks/"+map[string]string{"node": "shop.mjs", "python": "shop.py", "go": "shop/main.go"}[lang]))
			assertNoFileHolds(t, dir, token, apiKey, session, bodyToken)
			for _, v := range []string{"SHOP_AUTHORIZATION", "SHOP_API_KEY", "SHOP_X_SESSION", "SHOP_TOKEN"} {
				assert.Contains(t, stdout.String(), "set "+v+" to its value")
			}
			write(t, dir, "scenarios/shop/SC-002.yaml", `id: SC-002
title: Second turn
setup_messages: [Hi]
goal: Where is my order?
acceptance_criteria:
  - {statement: The conversation continues, check: contains, params: {text: "Where is my order? (turn 2)"}}
  - {statement: The agent looks it up, check: called, params: {name: lookup, arguments: {q: orders}}}
  - {statement: Two turns of 5 + 7 tokens, check: usage, params: {total_max: 24}}
`)
			// The response leaves calls and the output count out: not observed, not none.
			write(t, dir, "scenarios/shop/SC-003.yaml", `id: SC-003
title: Quiet
goal: Answer quietly.
acceptance_criteria:
  - {statement: No lookup, check: not_called, params: {name: lookup}}
  - {statement: Few output tokens, check: usage, params: {output_max: 100}}
  - {statement: Few input tokens, check: usage, params: {input_max: 100}}
`)
			// The message passes byte for byte into the request body and back.
			write(t, dir, "scenarios/shop/SC-004.yaml", "id: SC-004\ntitle: Special\ngoal: "+specialGoal+"\nacceptance_criteria:\n"+
				"  - {statement: s, check: contains, params: {text: "+specialReply+", case_sensitive: true}}\n")
			// The agent answers in 50 ms; starting the hook costs more than the budget. Three
			// attempts, one of which must pass: a machine running other tests beside this one
			// can hold up one turn, and the measurement is of the agent, not of that.
			write(t, dir, "scenarios/shop/SC-005.yaml", "id: SC-005\ntitle: Fast\ngoal: Hello.\nrepeat: 3\nmin_pass: 1\nacceptance_criteria:\n"+
				"  - {statement: The agent answers within 150 ms, check: latency, params: {max_ms: 150}}\n")
			rookgen(t, dir)

			creds := []string{"SHOP_API_KEY=" + apiKey, "SHOP_X_SESSION=" + session, "SHOP_TOKEN=" + bodyToken}
			res, err := goTest(t, dir, append([]string{goflags, "SHOP_AUTHORIZATION=" + token}, creds...), "./scenarios/...", "-v")
			require.NoError(t, err, res.all)
			assert.Equal(t, "pass", res.action["TestLocal/SC-001_the_agent_answers"], res.all)
			assert.Equal(t, "pass", res.action["TestLocal/SC-002_second_turn"], res.all)
			assert.Equal(t, "skip", res.action["TestLocal/SC-003_quiet/C1_not_called_lookup"], res.all)
			assert.Contains(t, res.output["TestLocal/SC-003_quiet/C1_not_called_lookup"], "Unable to Verify (not_observable)")
			assert.Equal(t, "skip", res.action["TestLocal/SC-003_quiet/C2_usage"], res.all)
			assert.Contains(t, res.output["TestLocal/SC-003_quiet/C2_usage"], "no phase reported usage.output")
			assert.Equal(t, "pass", res.action["TestLocal/SC-003_quiet/C3_usage"], res.all)
			assert.Equal(t, "pass", res.action["TestLocal/SC-004_special"], res.all)
			assert.Equal(t, "pass", res.action["TestLocal/SC-005_fast"], res.all)
			assert.Contains(t, res.all, "(the agent's, as the hook timed it; the hook took ")
			assert.Contains(t, res.all, "4 passed, 0 failed")
			fast, err := filepath.Glob(filepath.Join(dir, ".rook/runs/shop/*/scenarios/SC-005/attempts/*/response.json"))
			require.NoError(t, err)
			require.Len(t, fast, 3)
			type timed struct {
				LatencyMs int64 `json:"latency_ms"`
				HookMs    int64 `json:"hook_ms"`
			}
			var timing timed
			for i, f := range fast { // the fastest attempt: the agent's time with the least of the machine's in it
				var at timed
				b, err := os.ReadFile(f)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(b, &at))
				if i == 0 || at.LatencyMs < timing.LatencyMs {
					timing = at
				}
			}
			// The agent's own time, reported by the hook (52 to 68 ms here on a quiet machine,
			// up to 108 ms beside other tests), leaves out the hook's own start: it is nearer
			// the agent's time than the hook process's, however loaded the machine is.
			assert.GreaterOrEqual(t, timing.LatencyMs, agentTime.Milliseconds())
			assert.LessOrEqual(t, timing.LatencyMs-agentTime.Milliseconds(), (timing.HookMs-agentTime.Milliseconds())/2, "latency_ms leaves out the hook's start")
			assert.Greater(t, timing.HookMs, timing.LatencyMs, "the hook process's time is kept beside it")
			t.Logf("%s: agent %d ms, hook process %d ms", lang, timing.LatencyMs, timing.HookMs)
			for _, secret := range []string{token, apiKey, session, bodyToken} {
				assert.NotContains(t, res.all, secret, "the credentials are redacted")
			}
			responses, err := filepath.Glob(filepath.Join(dir, ".rook/runs/shop/*/scenarios/SC-002/response.json"))
			require.NoError(t, err)
			require.Len(t, responses, 1)
			var response struct {
				Usage struct {
					Input  int `json:"input_tokens"`
					Output int `json:"output_tokens"`
				}
				Calls []struct{ Name string }
			}
			data, err := os.ReadFile(responses[0])
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &response))
			assert.Equal(t, 10, response.Usage.Input, "prompt_tokens of two turns")
			assert.Equal(t, 14, response.Usage.Output, "completion_tokens of two turns")
			assert.Len(t, response.Calls, 2)

			res, err = goTest(t, dir, append([]string{goflags, "SHOP_AUTHORIZATION=tok-wrong-7c2e9a41"}, creds...), "./scenarios/...", "-v")
			require.Error(t, err)
			assert.Contains(t, res.all, "answered 401: ")
			assert.Contains(t, res.all, "who are you?")
			assert.Contains(t, res.all, "(the request sends SHOP_API_KEY in the URL, SHOP_AUTHORIZATION in the Authorization header, SHOP_X_SESSION in the X-Session header, SHOP_TOKEN in the body)",
				"a refused request says how each credential is sent")
		})
	}
}

// TestInitHooksFeedAnyCommand: the hook init writes, in each language, passes a message of
// 180 KB to a command that closes its input unread (echo, say: its exit status decides the
// turn, not the broken pipe) and to one that answers line by line as it reads (the message
// is written while the reply is read, so neither side waits on a full pipe).
func TestInitHooksFeedAnyCommand(t *testing.T) {
	t.Parallel() // waits on builds and hooks more than it computes
	if testing.Short() {
		t.Skip("builds and runs generated packages")
	}
	lines := make([]string, 3000)
	for i := range lines {
		lines[i] = fmt.Sprintf("    line %04d of a long message that the agent is given in full", i)
	}
	goal := "goal: |\n" + strings.Join(lines, "\n") + "\n"
	for _, lang := range []string{"node", "python", "go"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			if lang == "python" {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("needs python3")
				}
			}
			dir := newModule(t)
			write(t, dir, "bin/echo-agent", "#!/bin/sh\nsed 's/^/you said: /'\n")
			require.NoError(t, os.Chmod(filepath.Join(dir, "bin/echo-agent"), 0o755))
			var stdout, stderr bytes.Buffer
			require.Equal(t, 0, run([]string{"init", "deaf", "--command", `sh -c 'exec 0<&-; sleep 0.2; echo fixed answer'`, "--lang", lang, "-root", dir}, &stdout, &stderr), stderr.String())
			require.Equal(t, 0, run([]string{"init", "echo", "--command", "./bin/echo-agent", "--lang", lang, "-root", dir}, &stdout, &stderr), stderr.String())
			write(t, dir, "scenarios/deaf/SC-002.yaml", "id: SC-002\n"+goal+"acceptance_criteria:\n  - {statement: s, check: contains, params: {text: fixed answer}}\n")
			write(t, dir, "scenarios/echo/SC-002.yaml", "id: SC-002\n"+goal+"acceptance_criteria:\n  - {statement: s, check: contains, params: {text: 'you said: line 2999 of a long message'}}\n")
			rookgen(t, dir)
			res, err := goTest(t, dir, []string{goflags}, "./scenarios/...", "-v")
			require.NoError(t, err, res.all)
			assert.Equal(t, "pass", res.action["TestLocal/SC-002"], res.all)
			assert.Equal(t, 2, strings.Count(res.all, "2 passed, 0 failed"), res.all)
		})
	}
}

// init writes nothing through a link: a profiles/<agent> folder or a .gitignore that links
// out of the module is refused before anything is written, and what it links to is left
// as it was.
func TestInitWritesNothingThroughALink(t *testing.T) {
	for _, link := range []string{"profiles/bot", ".gitignore"} {
		t.Run(link, func(t *testing.T) {
			dir, outside := newModule(t), t.TempDir()
			target := filepath.Join(outside, "target")
			if link == ".gitignore" {
				require.NoError(t, os.WriteFile(target, []byte("precious\n"), 0o644))
			} else {
				require.NoError(t, os.MkdirAll(target, 0o755))
				require.NoError(t, os.MkdirAll(filepath.Join(dir, "profiles"), 0o755))
			}
			require.NoError(t, os.Symlink(target, filepath.Join(dir, link)))
			var stdout, stderr bytes.Buffer
			code := run([]string{"init", "bot", "--command", "echo", "-root", dir}, &stdout, &stderr)
			require.Equal(t, 1, code, stdout.String())
			assert.Contains(t, stderr.String(), "is a link, and init writes nothing through a link")
			assert.NotContains(t, stdout.String(), "wrote ")
			if link == ".gitignore" {
				data, err := os.ReadFile(target)
				require.NoError(t, err)
				assert.Equal(t, "precious\n", string(data))
			} else {
				entries, err := os.ReadDir(target)
				require.NoError(t, err)
				assert.Empty(t, entries)
			}
		})
	}
}

// TestInitAddsAProfileToAnAgent: init on an agent the module has adds the profile and its
// hook beside the first (named after the profile when the agent's hook name is taken), a Go
// agent's registration once, and no SC-001 when the agent has scenarios; it names what it
// kept, refuses a profile the agent has, and go test runs every profile green.
func TestInitAddsAProfileToAnAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	echo := `sh -c 'echo "you said: $1"' sh {{goal}}`
	init := func(args ...string) (string, int) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := run(append(append([]string{"init", "helper"}, args...), "-root", dir), &stdout, &stderr)
		return stdout.String() + stderr.String(), code
	}
	out, code := init("--command", echo)
	require.Equal(t, 0, code, out)
	sc001, err := os.ReadFile(filepath.Join(dir, "scenarios/helper/SC-001.yaml"))
	require.NoError(t, err)

	out, code = init("--command", echo, "--profile", "second")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "kept profiles/helper/hooks/helper.mjs: another profile's hook")
	assert.Contains(t, out, "kept scenarios/helper: its 1 scenario file(s), which the new profile runs too")
	assert.Contains(t, out, "wrote profiles/helper/second.yaml")
	assert.Contains(t, out, "wrote profiles/helper/hooks/helper-second.mjs")
	assert.NotContains(t, out, "wrote scenarios/helper/SC-001.yaml")

	out, code = init("--go", "--profile", "inproc")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "wrote scenarios/helper/agent_test.go")
	assert.Contains(t, out, "edit scenarios/helper/agent_test.go")
	out, code = init("--go", "--profile", "inproc-two")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "kept scenarios/helper/agent_test.go: it registers Go agent helper, which the new profile calls")

	out, code = init("--go", "--profile", "inproc")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "profiles/helper/inproc.yaml already exists: agent helper has a profile inproc; give another --profile")
	after, err := os.ReadFile(filepath.Join(dir, "scenarios/helper/SC-001.yaml"))
	require.NoError(t, err)
	assert.Equal(t, sc001, after, "nothing is overwritten")

	res, err := goTest(t, dir, []string{goflags}, "./scenarios/helper", "-v")
	require.NoError(t, err, res.all)
	for _, test := range []string{"TestLocal", "TestSecond", "TestInproc", "TestInprocTwo"} {
		assert.Equal(t, "pass", res.action[test+"/SC-001_the_agent_answers"], "%s: %s", test, res.all)
	}
}
