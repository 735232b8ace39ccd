package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rookgo/rookgo/schemas"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rookgen in a module with no profiles says so and fails, rather than generating nothing
// with exit 0.
func TestNoProfilesSaysSo(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/n\n\ngo 1.26\n"), 0o644))
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, run([]string{"-root", root}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "no profile under "+filepath.Join(root, "profiles")+", so there is nothing to generate: write one with rookgen init")
}

// The usage line lists every flag of init, as init's own flag set defines them.
func TestUsageListsEveryInitFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	run([]string{"-h"}, &stdout, &stderr)
	usage := stderr.String()
	var initHelp bytes.Buffer
	run([]string{"init", "-h"}, &stdout, &initHelp)
	var names []string
	for _, line := range strings.Split(initHelp.String(), "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "-"); ok && !strings.HasPrefix(line, "usage") && line != "" && strings.HasPrefix(line, "  -") {
			names = append(names, strings.Fields(name)[0])
		}
	}
	require.NotEmpty(t, names, initHelp.String())
	for _, n := range names {
		assert.Regexp(t, `rookgen init <agent>[^\n]*-{1,2}`+n+`\b`, usage, "the usage line lacks init's -%s", n)
	}
}

// rookgen schema writes the schemas the files init writes point at, for an editor offline.
func TestSchemaCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"schema", "-o", dir}, &stdout, &stderr), stderr.String())
	for name, want := range map[string][]byte{"profile.schema.json": schemas.Profile, "scenario.schema.json": schemas.Scenario} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	assert.Contains(t, stdout.String(), "wrote "+filepath.Join(dir, "profile.schema.json"))
}
