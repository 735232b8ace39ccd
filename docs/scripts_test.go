package docs_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestScripts runs docs/testdata/*.txtar, each in a module of its own that uses this
// repository, with rookgen on PATH and the blocks the pages give it under doc/.
func TestScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated suites")
	}
	goCmd := goTool(t)
	scripts, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	bin := rookgenBinary(t, goCmd)
	root, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	env := goEnv(t, goCmd)
	given := allBlocks(t)
	for _, s := range scripts {
		t.Run(strings.TrimSuffix(filepath.Base(s), ".txtar"), func(t *testing.T) {
			t.Parallel()
			testscript.Run(t, testscript.Params{
				Files: []string{s},
				Setup: func(e *testscript.Env) error {
					return setup(e, root, bin, env, filepath.ToSlash(filepath.Join("docs", s)), given)
				},
				Cmds:                map[string]func(*testscript.TestScript, bool, []string){"cmpout": cmpout, "agent": agent},
				RequireExplicitExec: true,
			})
		})
	}
}

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

// rookgenBinary builds rookgen once, into a folder to put on the scripts' PATH.
func rookgenBinary(t *testing.T, goCmd string) string {
	t.Helper()
	buildOnce.Do(func() {
		builtDir, buildErr = os.MkdirTemp("", "rookgen-docs")
		if buildErr != nil {
			return
		}
		out, err := exec.Command(goCmd, "build", "-o", filepath.Join(builtDir, "rookgen"+exeSuffix()), "../rookgen").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("build rookgen: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtDir
}

func exeSuffix() string {
	if os.PathSeparator == '\\' {
		return ".exe"
	}
	return ""
}

// goEnv is what the go command needs inside a script, whose HOME is not the user's: this
// one's caches and its way to modules (the same proxy and checksum database as the
// tests that run go get), and -mod=mod.
func goEnv(t *testing.T, goCmd string) []string {
	t.Helper()
	names := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOINSECURE"}
	out, err := exec.Command(goCmd, append([]string{"env"}, names...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}
	for i, v := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if i < len(names) {
			env = append(env, names[i]+"="+v)
		}
	}
	return env
}

// setup makes the script's folder a module that uses this repository, puts rookgen on
// PATH, and writes the blocks the pages give script under doc/.
func setup(e *testscript.Env, root, bin string, env []string, script string, given []block) error {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		e.Setenv(k, v)
	}
	e.Setenv("PATH", bin+string(os.PathListSeparator)+e.Getenv("PATH"))
	e.Setenv("ROOKGO", root)
	mod := filepath.Join(e.WorkDir, "go.mod")
	if data, err := os.ReadFile(mod); err == nil {
		version, err := requiredVersion(filepath.Join(root, "go.mod"), "gotest.tools/gotestsum")
		if err != nil {
			return err
		}
		data = bytes.ReplaceAll(data, []byte("GOTESTSUM_VERSION"), []byte(version))
		data = append(data, "\nreplace github.com/rookgo/rookgo => "+root+"\n"...)
		if err := os.WriteFile(mod, data, 0o644); err != nil {
			return err
		}
		sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(e.WorkDir, "go.sum"), sum, 0o644); err != nil {
			return err
		}
	}
	for _, b := range given {
		name, file, _ := strings.Cut(b.marker, " ")
		if name != script || file == "" {
			continue
		}
		path := filepath.Join(e.WorkDir, filepath.FromSlash(file))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(b.text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// requiredVersion is the version of module path that the go.mod at file requires, so that
// a script's module uses the version this repository's tests have in the module cache.
func requiredVersion(file, path string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(path) + `\s+(v\S+)`).FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s requires no %s", file, path)
	}
	return string(m[1]), nil
}

// What changes from one run to the next in go test's output: times, run ids, the module's
// folder, rooktest's own line numbers.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\(\d+\.\d+s\)`), "(T)"},
	{regexp.MustCompile(`\t\d+\.\d+s$`), "\tT"},
	{regexp.MustCompile(`ok in \d+ ms`), "ok in T"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ`), "RUN"},
	{regexp.MustCompile(`rooktest\.go:\d+:`), "rooktest.go:N:"},
}

// normalize is output as compared: the volatile parts replaced, the module's folder
// (dir) written as /home/you/<module's last element>, and "$ command" lines left out.
func normalize(text, dir string) string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if strings.HasPrefix(line, "$ ") {
			continue
		}
		if dir != "" {
			line = strings.ReplaceAll(line, dir, "/home/you/MODULE")
		}
		line = regexp.MustCompile(`/home/you/[\w.-]+`).ReplaceAllString(line, "/home/you/MODULE")
		for _, v := range volatile {
			line = v.re.ReplaceAllString(line, v.with)
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// cmpout compares the last command's stdout with a file, as the pages show output: with
// the parts that change from run to run made the same.
func cmpout(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || args[0] != "stdout" {
		ts.Fatalf("usage: cmpout stdout file")
	}
	got := normalize(ts.ReadFile("stdout"), ts.Getenv("WORK"))
	want := normalize(ts.ReadFile(args[1]), "")
	if got == want {
		return
	}
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		gl, wl := "", ""
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			ts.Fatalf("output differs from %s at line %d:\n got: %q\nwant: %q\n\nall of it:\n%s", args[1], i+1, gl, wl, got)
		}
	}
}

// agent starts a support agent on loopback for the rest of the script, and writes the
// OpenAPI document that describes it to the file given: POST /v1/chat with a bearer token
// (the script's SUPPORTBOT_TOKEN), {"message", "conversation_id"} in, {"reply",
// "conversation_id", "usage"} out. It answers each message with itself.
func agent(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: agent openapi.yaml")
	}
	token := ts.Getenv("SUPPORTBOT_TOKEN")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Message        string `json:"message"`
			ConversationID string `json:"conversation_id"`
		}
		switch {
		case r.Method != http.MethodPost || r.URL.Path != "/v1/chat":
			http.NotFound(w, r)
			return
		case r.Header.Get("Authorization") != "Bearer "+token:
			http.Error(w, `{"error": "missing or bad bearer token"}`, http.StatusUnauthorized)
			return
		case json.NewDecoder(r.Body).Decode(&in) != nil:
			http.Error(w, `{"error": "not JSON"}`, http.StatusBadRequest)
			return
		}
		if in.ConversationID == "" {
			in.ConversationID = "conv-1"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"reply": "you said: " + in.Message, "conversation_id": in.ConversationID,
			"usage": map[string]int{"input_tokens": 12, "output_tokens": 5}})
	}))
	ts.Defer(srv.Close)
	doc := `openapi: 3.0.3
info: {title: support bot, version: "1"}
servers: [{url: "` + srv.URL + `"}]
security: [{bearer: []}]
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
paths:
  /v1/chat:
    post:
      operationId: chat
      requestBody:
        content:
          application/json:
            schema:
              type: object
              required: [message]
              properties:
                message: {type: string}
                conversation_id: {type: string}
      responses:
        "200":
          description: the agent's answer
          content:
            application/json:
              schema:
                type: object
                properties:
                  reply: {type: string}
                  conversation_id: {type: string}
                  usage:
                    type: object
                    properties:
                      input_tokens: {type: integer}
                      output_tokens: {type: integer}
`
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(doc), 0o644))
}
