package main

import (
	"bytes"
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

// writeGateRun writes run id of agent fake under root with the given statuses.
func writeGateRun(t *testing.T, root, id string, created time.Time, statuses map[string]record.Status) {
	t.Helper()
	dir := filepath.Join(root, "fake", id)
	run := record.Run{Version: 1, ID: id, Agent: "fake", Pins: record.Pins{ProfileID: "p", ProfileRevision: "sha256:p"}, Created: created}
	red := store.NewRedactor(nil)
	for sc, st := range statuses {
		run.Included = append(run.Included, record.Entry{ScenarioID: sc, Why: "selected"})
		sdir := filepath.Join(dir, "scenarios", sc)
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "hooks.json"), []byte(`{"version": 1}`)))
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "snapshot.yaml"), []byte("id: "+sc+"\n")))
		require.NoError(t, red.WriteVerdict(sdir, &record.Verdict{ScenarioID: sc, Status: st, Criteria: []record.Row{}}))
	}
	require.NoError(t, red.WriteRun(filepath.Join(dir, "run.yaml"), run))
}

// rookgen gate exits 1 on a significant regression (six scenarios pass to fail, none the
// other way: p = 0.031) and 0 on a single flip (p = 1), saying the test and its numbers.
func TestGate(t *testing.T) {
	root := t.TempDir()
	all := func(st record.Status, n int) map[string]record.Status {
		m := map[string]record.Status{}
		for i := 1; i <= n; i++ {
			m[fmt.Sprintf("SC-%02d", i)] = st
		}
		return m
	}
	day := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	writeGateRun(t, root, "2026-12-04T10-00-00Z", day, all(record.Pass, 8))
	regressed := all(record.Pass, 8)
	for i := 1; i <= 6; i++ {
		regressed[fmt.Sprintf("SC-%02d", i)] = record.Fail
	}
	writeGateRun(t, root, "2026-12-04T11-00-00Z", day.Add(time.Hour), regressed)
	oneFlip := all(record.Pass, 8)
	oneFlip["SC-03"] = record.Fail
	writeGateRun(t, root, "2026-12-04T12-00-00Z", day.Add(2*time.Hour), oneFlip)

	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	var stdout, stderr bytes.Buffer
	code := run([]string{"gate", "-dir", root, "-run", "2026-12-04T11-00-00Z", "-base", "2026-12-04T10-00-00Z"}, &stdout, &stderr)
	assert.Equal(t, 1, code, stderr.String())
	assert.Contains(t, stdout.String(), "paired over 8 scenario(s) decided in both runs: 6 pass→fail, 0 fail→pass; McNemar's exact test p = 0.03125")
	assert.Contains(t, stdout.String(), "fails: a significant regression")
	b, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(b), "McNemar's exact test p = 0.03125", "the step summary states the test and its numbers")

	stdout.Reset()
	code = run([]string{"gate", "-dir", root, "-run", "2026-12-04T12-00-00Z", "-base", "2026-12-04T10-00-00Z"}, &stdout, &stderr)
	assert.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "1 pass→fail, 0 fail→pass; McNemar's exact test p = 1; the gate (more than 0 regression(s), more than fixes, p < 0.05) passes")
}
