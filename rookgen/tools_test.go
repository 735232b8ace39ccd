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
