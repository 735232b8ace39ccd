package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rookgo/rookgo/internal/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrune keeps the newest runs of each profile, and never one another process holds.
func TestPrune(t *testing.T) {
	root := t.TempDir()
	mk := func(agent, id, profile string) string {
		d := filepath.Join(root, agent, id)
		write(t, d, "run.yaml", "version: 1\nid: "+id+"\npins: {profile_id: "+profile+"}\n")
		return d
	}
	old1 := mk("a", "2026-01-01T00-00-00Z", "p")
	old2 := mk("a", "2026-01-02T00-00-00Z", "p")
	held := mk("a", "2026-01-03T00-00-00Z", "p")
	newest := mk("a", "2026-01-04T00-00-00Z", "p")
	only := mk("a", "2026-01-01T00-00-00Z-2", "q")
	unlock, err := store.Lock(held)
	require.NoError(t, err)
	defer unlock()
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"prune", "-keep", "1", "-dir", root}, &stdout, &stderr), stderr.String())
	assert.NoDirExists(t, old1)
	assert.NoDirExists(t, old2)
	assert.DirExists(t, held, "a run another process holds is kept")
	assert.Contains(t, stderr.String(), "is being written by another process")
	assert.DirExists(t, newest, "the newest run of a profile is kept")
	assert.DirExists(t, only, "so is the only run of another profile")
	assert.Equal(t, 2, run([]string{"prune", "-keep", "0", "-dir", root}, &stdout, &stderr))
}

// Prune never reaches outside the records root: an agent folder linked elsewhere is not
// walked, a run.lock linked to another file is never written (not even by -n), and a run
// whose run.yaml claims a later start is not taken for the newest.
func TestPruneAttacks(t *testing.T) {
	root := t.TempDir()
	elsewhere := t.TempDir()
	mk := func(base, agent, id, yaml string) string {
		d := filepath.Join(base, agent, id)
		write(t, d, "run.yaml", "version: 1\nid: "+id+"\npins: {profile_id: p}\n"+yaml)
		return d
	}
	// Runs of an agent that lives elsewhere, its folder linked into the root.
	kept1 := mk(elsewhere, "b", "2026-01-01T00-00-00Z", "")
	kept2 := mk(elsewhere, "b", "2026-01-02T00-00-00Z", "")
	require.NoError(t, os.Symlink(filepath.Join(elsewhere, "b"), filepath.Join(root, "b")))
	// A run whose lock is a link to a file outside the root.
	victim := filepath.Join(elsewhere, "victim.txt")
	require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o644))
	linked := mk(root, "a", "2026-01-01T00-00-00Z", "")
	require.NoError(t, os.Symlink(victim, filepath.Join(linked, "run.lock")))
	// An old run that claims to have started in 2099, and the real newest.
	claims := mk(root, "a", "2026-01-02T00-00-00Z", "created: 2099-01-01T00:00:00Z\n")
	newest := mk(root, "a", "2026-01-03T00-00-00Z", "")

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"prune", "-keep", "1", "-dir", root, "-n"}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "would remove "+claims)
	assert.Contains(t, stdout.String(), "would keep "+linked)
	assert.NotContains(t, stdout.String(), elsewhere)
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "precious", string(data), "-n writes nothing, not even a lock's pid")
	assert.NoFileExists(t, filepath.Join(claims, "run.lock"), "-n takes no lock")

	stdout.Reset()
	require.Equal(t, 0, run([]string{"prune", "-keep", "1", "-dir", root}, &stdout, &stderr), stderr.String())
	assert.DirExists(t, newest, "the real newest run is kept")
	assert.NoDirExists(t, claims, "a claim in run.yaml does not make a run the newest")
	assert.DirExists(t, linked, "a run whose lock is a link is kept")
	assert.Contains(t, stderr.String(), "kept "+linked)
	data, err = os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "precious", string(data), "a lock is never written through a link")
	assert.DirExists(t, kept1, "an agent folder that is a link is not walked")
	assert.DirExists(t, kept2)
}

// TestWatchRegenerates: with -watch, a new or edited scenario is generated at once.
func TestWatchRegenerates(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "profiles/a/p.yaml", "id: p\nhooks: {execute: hook.mjs}\n")
	write(t, dir, "profiles/a/hook.mjs", "")
	write(t, dir, "scenarios/a/SC-1.yaml", "id: SC-1\ngoal: g\n")
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() { done <- watch(ctx, dir, &stdout, &stderr) }()
	file := filepath.Join(dir, "scenarios/a/p_rook_test.go")
	require.Eventually(t, func() bool { _, err := os.Stat(file); return err == nil }, 5*time.Second, 20*time.Millisecond)
	write(t, dir, "scenarios/a/SC-2.yaml", "id: SC-2\ngoal: g\n")
	assert.Eventually(t, func() bool {
		b, _ := os.ReadFile(file)
		return strings.Contains(string(b), `"SC-2"`)
	}, 5*time.Second, 20*time.Millisecond, "the new scenario is generated: %s", stderr.String())
	cancel()
	require.NoError(t, <-done)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
