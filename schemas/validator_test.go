package schemas_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/schemas"
)

// ajv finds ajv-cli (npm install -g ajv-cli@5), a JSON Schema validator no one here wrote;
// CI requires it (ROOK_REQUIRE_VALIDATOR=1), elsewhere the test skips without it.
func ajv(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("ajv")
	if err != nil {
		if os.Getenv("ROOK_REQUIRE_VALIDATOR") != "" {
			t.Fatal("ajv (npm install -g ajv-cli@5) is not on PATH, and ROOK_REQUIRE_VALIDATOR is set")
		}
		t.Skip("needs ajv on PATH: npm install -g ajv-cli@5")
	}
	return path
}

// The schemas, written to a folder as rookgen schema writes them and read from there alone
// (offline), let a validator from npm accept Rook's sample files and this project's, and
// refuse a misspelt param and a command given as a string.
func TestAValidatorFromNPMReadsTheSchemas(t *testing.T) {
	bin := ajv(t)
	dir := t.TempDir()
	require.NoError(t, schemas.Write(dir))
	validate := func(kind string, files ...string) (string, error) {
		args := []string{"validate", "--spec=draft2020", "--allow-union-types", "--all-errors", "-s", filepath.Join(dir, kind+".schema.json")}
		for _, f := range files {
			args = append(args, "-d", f)
		}
		out, err := exec.Command(bin, args...).CombinedOutput()
		return string(out), err
	}
	var profiles, scenarios []string
	// Rook's files sit in its agents' profiles/ and scenarios/ folders (its runs' records
	// are not these kinds); this project's one folder deeper, by agent.
	for _, root := range []struct {
		dir   string
		depth int
	}{{"../internal/spec/testdata/rook-samples", 1}, {"../profiles", 2}, {"../scenarios", 2}} {
		require.NoError(t, filepath.WalkDir(root.dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || !strings.HasSuffix(path, ".yaml") {
				return err
			}
			kind := path
			for range root.depth {
				kind = filepath.Dir(kind)
			}
			switch filepath.Base(kind) {
			case "profiles":
				profiles = append(profiles, path)
			case "scenarios":
				scenarios = append(scenarios, path)
			}
			return nil
		}))
	}
	require.GreaterOrEqual(t, len(profiles), 3)
	require.GreaterOrEqual(t, len(scenarios), 15)
	for kind, files := range map[string][]string{"profile": profiles, "scenario": scenarios} {
		out, err := validate(kind, files...)
		assert.NoError(t, err, "%s", out)
		assert.Equal(t, len(files), strings.Count(out, " valid\n"), "%s", out)
	}
	for _, bad := range []struct{ kind, yaml, says string }{
		{"scenario", "id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {txt: hello}}\n", "txt"},
		{"scenario", "id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: latency, params: {max_ms: fast}}\n", "integer"},
		{"profile", "id: p\nhooks:\n  execute: {command: \"my-agent --flag\"}\n", "array"},
	} {
		file := filepath.Join(t.TempDir(), "bad.yaml")
		require.NoError(t, os.WriteFile(file, []byte(bad.yaml), 0o644))
		out, err := validate(bad.kind, file)
		assert.Error(t, err, "ajv accepted:\n%s", bad.yaml)
		assert.Contains(t, out, bad.says)
	}
}
