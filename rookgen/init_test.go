package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInitThenGoTest is a user's first five minutes: init in a fresh module, for a command
// line agent, with a node and with a python hook, then go test ./scenarios/... is green,
// and a second init refuses to overwrite anything.
func TestInitThenGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated packages")
	}
	tests := []struct {
		name, lang, command string
	}{
		// The message as an argument, through sh's $1 (never pasted into the script).
		{name: "node-argument", lang: "node", command: `sh -c 'echo "you said: $1"' sh {{goal}}`},
		// Without {{goal}}, the message comes on the command's stdin.
		{name: "python-stdin", lang: "python", command: `sed 's/^/you said: /'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.lang == "python" {
				if _, err := exec.LookPath("python3"); err != nil {
					t.Skip("needs python3")
				}
			}
			dir := newModule(t)
			var stdout, stderr bytes.Buffer
			code := run([]string{"init", "helper", "--command", tc.command, "--lang", tc.lang, "-root", dir}, &stdout, &stderr)
			require.Equal(t, 0, code, stderr.String())
			ext := map[string]string{"node": ".mjs", "python": ".py"}[tc.lang]
			for _, f := range []string{"profiles/helper/local.yaml", "profiles/helper/hooks/helper" + ext, "scenarios/helper/SC-001.yaml",
				"scenarios/doc.go", ".gitignore", "scenarios/helper/local_rook_test.go"} {
				assert.FileExists(t, filepath.Join(dir, f))
				assert.Contains(t, stdout.String(), "wrote "+f, "init names every file it wrote")
			}
			assert.Contains(t, stdout.String(), "next:\n  go test ./scenarios/helper ")

			res, err := goTest(t, dir, []string{"GOFLAGS=-mod=mod"}, "./scenarios/...", "-v")
			require.NoError(t, err, res.all)
			assert.Equal(t, "pass", res.action["TestLocal/SC-001_the_agent_answers"], res.all)
			assert.Contains(t, res.all, "1 passed, 0 failed")
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
			assert.Contains(t, stderr.String(), "profiles/helper/local.yaml")
			assert.Contains(t, stderr.String(), "scenarios/helper/SC-001.yaml already exist(s); init writes only new files")
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
