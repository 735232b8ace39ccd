package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/spec"
)

func TestWriteCapabilities(t *testing.T) {
	for name, tc := range map[string]struct{ in, want string }{
		"added": {in: "# p\nid: p\nhooks: {execute: x.mjs}\n",
			want: "# p\nid: p\nhooks: {execute: x.mjs}\ncapabilities:\n  multi_turn: true\n  calls: false\n  usage: true\n"},
		"replaced, comments kept": {in: "id: p\ncapabilities:\n  # kept\n  calls: true # and this\nconcurrency: 2\n",
			want: "id: p\ncapabilities:\n  # kept\n  calls: false # and this\n  multi_turn: true\n  usage: true\nconcurrency: 2\n"},
		"empty": {in: "id: p\ncapabilities:\n", want: "id: p\ncapabilities:\n  multi_turn: true\n  calls: false\n  usage: true\n"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tc.in), 0o644))
			require.NoError(t, writeCapabilities(path, spec.Capabilities{MultiTurn: true, Usage: true}))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got))
		})
	}
	path := filepath.Join(t.TempDir(), "p.yaml")
	require.NoError(t, os.WriteFile(path, []byte("- a list\n"), 0o644))
	assert.ErrorContains(t, writeCapabilities(path, spec.Capabilities{}), "the profile is not a mapping")
}
