package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListRuns(t *testing.T) {
	root := t.TempDir()
	mk := func(agent, id, body string) {
		d := filepath.Join(root, agent, id)
		require.NoError(t, os.MkdirAll(d, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "run.yaml"), []byte(body), 0o644))
	}
	mk("a", "2026-01-01T00-00-00Z", "id: x\npins: {profile_id: p}\n")
	mk("a", "2026-01-02T00-00-00Z", "id: x\npins: {profile_id: q}\n")
	mk("b", "2026-01-03T00-00-00Z", "id: x\npins: {profile_id: p}\n")
	mk("a", "2026-01-04T00-00-00Z", "pins: [not, a, run\n")
	var got []string
	for _, r := range ListRuns(root, "") {
		got = append(got, r.Agent+"/"+r.ID+"/"+r.ProfileID)
	}
	assert.Equal(t, []string{"b/2026-01-03T00-00-00Z/p", "a/2026-01-02T00-00-00Z/q", "a/2026-01-01T00-00-00Z/p"}, got,
		"newest first; a run.yaml that does not read is left out")
	runs := ListRuns(root, "a")
	require.Len(t, runs, 2)
	assert.Equal(t, filepath.Join(root, "a", "2026-01-02T00-00-00Z"), runs[0].Dir)
	assert.Empty(t, ListRuns(filepath.Join(root, "none"), ""))
}
