package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// writeShard writes a shard's run.yaml and profile.yaml under root/<name>/fake/<id>/, the
// scenarios it owns of ids included, and returns the run folder.
func writeShard(t *testing.T, root, name, id string, k, n int, ids []string, edit func(*record.Run)) string {
	t.Helper()
	dir := filepath.Join(root, name, "fake", id)
	run := record.Run{Version: 1, ID: id, Agent: "fake", Pins: record.Pins{ProfileID: "fake", ProfileRevision: "sha256:p"},
		Created: time.Date(2026, 12, 3, 10, k, 0, 0, time.UTC), Finished: time.Date(2026, 12, 3, 10, k+1, 0, 0, time.UTC),
		PhasesRun: []string{"execute", "judge"}, Shard: &record.Shard{Index: k, Count: n, SuiteRevision: "sha256:s"}}
	for _, sc := range ids {
		if record.ShardOf(sc, n) == k {
			run.Included = append(run.Included, record.Entry{ScenarioID: sc, Why: "selected"})
			sdir := filepath.Join(dir, "scenarios", sc)
			require.NoError(t, store.WriteFile(filepath.Join(sdir, "hooks.json"), []byte(`{"version": 1}`)))
			require.NoError(t, store.NewRedactor(nil).WriteVerdict(sdir, &record.Verdict{ScenarioID: sc, Status: "Pass"}))
		} else {
			run.Skipped = append(run.Skipped, record.Entry{ScenarioID: sc, Why: record.ShardSkipped(record.ShardOf(sc, n), n, fmt.Sprintf("%d/%d", k, n))})
		}
	}
	if edit != nil {
		edit(&run)
	}
	require.NoError(t, store.NewRedactor(nil).YAML(filepath.Join(dir, "run.yaml"), run))
	require.NoError(t, store.WriteFile(filepath.Join(dir, "profile.yaml"), []byte("id: fake\nhooks: {}\n")))
	return dir
}

var suite = []string{"SC-1", "SC-2", "SC-3", "SC-4", "SC-5", "SC-6", "SC-7"}

func TestMerge(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for k := 1; k <= 3; k++ {
		dirs = append(dirs, writeShard(t, root, filepath.Join("art", fmt.Sprintf("shard-%d", k), ".rook", "runs"), "ci-7", k, 3, suite, nil))
	}
	groups, err := findShards([]string{filepath.Join(root, "art")}, "")
	require.NoError(t, err)
	require.Len(t, groups, 1)
	found := groups[0]
	assert.ElementsMatch(t, dirs, found)

	out := filepath.Join(root, "out")
	dest, err := mergeRun(found, out, time.Date(2026, 12, 3, 11, 0, 0, 0, time.UTC), nil)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(out, "fake", "ci-7"), dest)
	run, err := store.Store{Dir: dest}.Run()
	require.NoError(t, err)
	var ids []string
	for _, e := range run.Included {
		ids = append(ids, e.ScenarioID)
	}
	assert.Equal(t, suite, ids, "every scenario once, in suite order")
	assert.Empty(t, run.Skipped, "a scenario another shard ran is not skipped in the merged run")
	assert.Equal(t, &record.Shard{Count: 3, SuiteRevision: "sha256:s", Merged: []int{1, 2, 3}}, run.Shard)
	rep, err := store.Store{Dir: dest}.Report()
	require.NoError(t, err)
	assert.Equal(t, 7, rep.Totals.Passed)
	assert.Equal(t, int64(3*time.Minute/time.Millisecond), rep.Metrics.DurationMs, "first start to last finish")
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary folder is left beside the merged run")
}

func TestMergeRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		edit func(*record.Run)
		want string
	}{
		"another suite":   {func(r *record.Run) { r.Shard.SuiteRevision = "sha256:other" }, "scenario files (suite revision) sha256:s"},
		"another profile": {func(r *record.Run) { r.Pins.ProfileRevision = "sha256:q" }, "profile revision sha256:p"},
		"another split":   {func(r *record.Run) { r.Shard.Count = 4 }, "shard count 3"},
		"not its own": {func(r *record.Run) {
			r.Included = append(r.Included, record.Entry{ScenarioID: "SC-1"}, record.Entry{ScenarioID: "SC-2"}, record.Entry{ScenarioID: "SC-3"})
		}, "which shard"},
		"merged already": {func(r *record.Run) { r.Shard.Index = 0 }, "is a merged run already"},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dirs := []string{writeShard(t, root, "a", "ci-7", 1, 3, suite, nil), writeShard(t, root, "b", "ci-7", 2, 3, suite, nil),
				writeShard(t, root, "c", "ci-7", 3, 3, suite, c.edit)}
			_, err := mergeRun(dirs, filepath.Join(root, "out"), time.Now(), nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			_, err = os.Stat(filepath.Join(root, "out", "fake"))
			assert.ErrorIs(t, err, os.ErrNotExist, "nothing written")
		})
	}
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	a := writeShard(t, root, "a", "ci-7", 1, 2, suite, nil)
	a6 := writeShard(t, root, "a", "ci-6", 1, 2, suite, nil)
	b := writeShard(t, root, "b", "ci-7", 2, 2, suite, nil)
	groups, err := findShards([]string{filepath.Join(root, "a"), filepath.Join(root, "b")}, "")
	require.NoError(t, err)
	assert.Equal(t, [][]string{{a6}, {a, b}}, groups, "one group per run, by agent and id")
	groups, err = findShards([]string{filepath.Join(root, "a")}, "ci-7")
	require.NoError(t, err)
	assert.Equal(t, [][]string{{a}}, groups)
	_, err = findShards([]string{filepath.Join(root, "a"), root + "/none"}, "ci-7")
	assert.ErrorContains(t, err, "find shards in "+root+"/none")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "empty"), 0o755))
	_, err = findShards([]string{filepath.Join(root, "empty")}, "ci-7")
	assert.EqualError(t, err, filepath.Join(root, "empty")+" holds no folder of run ci-7 (a run folder holds run.yaml)")
}

// What a shard's records name is hostile input: a forged agent, run or scenario id, a link
// in place of a scenario folder, a file others may not read, a scenario the suite does not
// have. Each attack changes nothing outside the records root, and a refused merge writes
// nothing.
func TestMergeAttacks(t *testing.T) {
	outside := func(t *testing.T, root string) string {
		t.Helper()
		victim := filepath.Join(root, "victim")
		require.NoError(t, os.MkdirAll(victim, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(victim, "keep.txt"), []byte("precious"), 0o600))
		return victim
	}
	shards := func(t *testing.T, root string, edit func(*record.Run)) []string {
		t.Helper()
		// Both shards forged alike, as an attacker would.
		return []string{writeShard(t, root, "a", "ci-7", 1, 2, suite, edit), writeShard(t, root, "b", "ci-7", 2, 2, suite, edit)}
	}
	for name, c := range map[string]struct {
		edit  func(*record.Run)
		suite func(string) ([]string, bool)
		want  string
	}{
		"agent id out of the root":     {edit: func(r *record.Run) { r.Agent = "../../victim" }, want: `names agent "../../victim"`},
		"agent id of another folder":   {edit: func(r *record.Run) { r.Agent = "other" }, want: `not the agent folder "fake"`},
		"run id out of the root":       {edit: func(r *record.Run) { r.ID = "../../victim" }, want: `names run "../../victim"`},
		"scenario id out of the shard": {edit: func(r *record.Run) { r.Included[0].ScenarioID = "../../../../victim" }, want: "which is no scenario id"},
		"scenario id that is a folder": {edit: func(r *record.Run) { r.Included[0].ScenarioID = "." }, want: "which is no scenario id"},
		"scenario not in the suite":    {suite: func(string) ([]string, bool) { return []string{"SC-1", "SC-2"}, true }, want: "which is not one of agent fake's scenario files"},
		"a suite that is not known":    {suite: func(string) ([]string, bool) { return nil, false }},
		"skipped id out of the shard":  {edit: func(r *record.Run) { r.Skipped = append(r.Skipped, record.Entry{ScenarioID: "../x"}) }, want: "which is no scenario id"},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			victim := outside(t, root)
			out := filepath.Join(root, "out")
			_, err := mergeRun(shards(t, root, c.edit), out, time.Now(), c.suite)
			if c.want == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.want)
				_, statErr := os.Stat(out)
				assert.ErrorIs(t, statErr, os.ErrNotExist, "a refused merge writes nothing")
			}
			data, err := os.ReadFile(filepath.Join(victim, "keep.txt"))
			require.NoError(t, err)
			assert.Equal(t, "precious", string(data))
			entries, err := os.ReadDir(victim)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "nothing written outside the records root")
		})
	}

	t.Run("links and modes", func(t *testing.T) {
		root := t.TempDir()
		victim := outside(t, root)
		dirs := shards(t, root, nil)
		// Shard a's first scenario folder becomes a link to the victim; a file of shard b's
		// is readable by its owner only.
		sc := filepath.Join(dirs[0], "scenarios", "SC-1")
		if record.ShardOf("SC-1", 2) != 1 {
			sc = filepath.Join(dirs[1], "scenarios", "SC-1")
		}
		require.NoError(t, os.RemoveAll(sc))
		require.NoError(t, os.Symlink(victim, sc))
		private := filepath.Join(dirs[1], "prepare", "token")
		require.NoError(t, os.MkdirAll(filepath.Dir(private), 0o755))
		require.NoError(t, os.WriteFile(private, []byte("t"), 0o600))
		dest, err := mergeRun(dirs, filepath.Join(root, "out"), time.Now(), nil)
		require.NoError(t, err)
		assert.NoFileExists(t, filepath.Join(dest, "scenarios", "SC-1", "keep.txt"), "a link is never followed")
		info, err := os.Stat(filepath.Join(dest, "shards", "2", "prepare", "token"))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "a file others could not read stays so")
	})
	t.Run("a profile.yaml that links out", func(t *testing.T) {
		root := t.TempDir()
		secret := filepath.Join(root, "kubeconfig")
		require.NoError(t, os.WriteFile(secret, []byte("token: s3cr3t-kube-token"), 0o600))
		dirs := shards(t, root, nil)
		for _, d := range dirs {
			_ = os.Remove(filepath.Join(d, "profile.yaml"))
			require.NoError(t, os.Symlink(secret, filepath.Join(d, "profile.yaml")))
		}
		_, err := mergeRun(dirs, filepath.Join(root, "out"), time.Now(), nil)
		require.Error(t, err, "no record file is read through a link")
		assert.Contains(t, err.Error(), "is not a regular file (a link is not followed to read a record)")
		assert.NoDirExists(t, filepath.Join(root, "out"))
	})
}
