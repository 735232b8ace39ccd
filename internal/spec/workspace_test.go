package spec_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/spec"
)

func TestRoot(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.26\n"), 0o644))
	deep := filepath.Join(dir, "scenarios", "agent")
	require.NoError(t, os.MkdirAll(deep, 0o755))
	root, module, err := spec.ModuleRoot(deep)
	require.NoError(t, err)
	assert.Equal(t, dir, root)
	assert.Equal(t, "example.com/m", module)

	_, _, err = spec.ModuleRoot(string(filepath.Separator))
	assert.EqualError(t, err, "find module root: no go.mod above the working directory")

	err = spec.RelErr(dir, errors.New(filepath.Join(dir, "scenarios", "a.yaml")+":1:1: bad"))
	assert.EqualError(t, err, "scenarios/a.yaml:1:1: bad")
}

func TestRootReadsTheModulePathAsGoDoes(t *testing.T) {
	for gomod, want := range map[string]string{
		"module example.com/m // the agents\n":       "example.com/m",
		"// header\nmodule \"example.com/quoted\"\n": "example.com/quoted",
		"module (\n\texample.com/block\n)\n":         "example.com/block",
		"go 1.26\n":                                  "", // no module line: the folder's name
	} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
		_, module, err := spec.ModuleRoot(dir)
		require.NoError(t, err)
		if want == "" {
			want = filepath.Base(dir)
		}
		assert.Equal(t, want, module, gomod)
	}
}

func TestGeneratorCommand(t *testing.T) {
	for gomod, want := range map[string]string{
		"module github.com/rookgo/rookgo\n":                                            "go run ./rookgen",
		"module example.com/m\n\ngo 1.26\n\ntool github.com/rookgo/rookgo/rookgen\n":   "go tool rookgen",
		"module example.com/m\n\ngo 1.26\n\nrequire github.com/rookgo/rookgo v0.1.0\n": "go run github.com/rookgo/rookgo/rookgen",
	} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
		assert.Equal(t, want, spec.GeneratorCommand(dir), gomod)
	}
}
