package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// The header goes under the schema line, quotes what a hook said (a terminal escape in it
// is shown, not sent), leaves the profile's YAML as it was, and is removed whole.
func TestUnverifiedHeader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "local.yaml")
	original := "# yaml-language-server: $schema=../../.rookgo/schemas/profile.schema.json\n# Profile local.\nid: local\nhooks: {execute: {command: [node, a.mjs]}}\n"
	require.NoError(t, os.WriteFile(path, []byte(original), 0o644))
	require.NoError(t, markUnverified(path, "execute: exited 1\n\x1b[31mred\x1b[0m\nid: injected", "go tool rookgen probe a/local"))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "# yaml-language-server: $schema=../../.rookgo/schemas/profile.schema.json\n"+
		"# NOT VERIFIED. rookgen init wrote this profile, but its probe failed:\n"+
		"#   \"execute: exited 1\"\n#   \"\\x1b[31mred\\x1b[0m\"\n#   \"id: injected\"\n"+
		"# Fix the hook, the profile or the agent, then run: go tool rookgen probe a/local\n"+
		"# (A probe that succeeds removes these lines.)\n# Profile local.\nid: local\nhooks: {execute: {command: [node, a.mjs]}}\n", string(data))
	var v map[string]any
	require.NoError(t, yaml.Unmarshal(data, &v))
	assert.Equal(t, "local", v["id"])

	cleared, err := removeUnverifiedHeader(path)
	require.NoError(t, err)
	assert.True(t, cleared)
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, original, string(data))
	cleared, err = removeUnverifiedHeader(path)
	require.NoError(t, err)
	assert.False(t, cleared, "nothing to remove")
}
