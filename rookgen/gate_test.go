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

// The gate's default baseline is the last complete run of the profile: a newer run from
// the IDE that ran one scenario (the others "not selected") is passed over, and the line
// says which run it compared with and what it passed over.
func TestGateSkipsAPartialBaseline(t *testing.T) {
	root := t.TempDir()
	day := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	all := map[string]record.Status{}
	for i := 1; i <= 8; i++ {
		all[fmt.Sprintf("SC-%02d", i)] = record.Pass
	}
	writeGateRun(t, root, "2026-12-04T10-00-00Z", day, all)
	// The IDE's run: SC-01 alone, failing; the others not selected.
	writeGateRun(t, root, "2026-12-04T11-00-00Z", day.Add(time.Hour), map[string]record.Status{"SC-01": record.Fail})
	partial := filepath.Join(root, "fake", "2026-12-04T11-00-00Z")
	st := store.Store{Dir: partial}
	rec, err := st.Run()
	require.NoError(t, err)
	for i := 2; i <= 8; i++ {
		rec.Skipped = append(rec.Skipped, record.Entry{ScenarioID: fmt.Sprintf("SC-%02d", i), Why: "not selected: go test -run did not match its subtest, or -failfast stopped before it"})
	}
	require.NoError(t, store.NewRedactor(nil).WriteRun(filepath.Join(partial, "run.yaml"), *rec))
	writeGateRun(t, root, "2026-12-04T12-00-00Z", day.Add(2*time.Hour), all)

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"gate", "-dir", root, "-run", "2026-12-04T12-00-00Z"}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "run 2026-12-04T12-00-00Z against 2026-12-04T10-00-00Z, the last complete run of profile p (passed over, as partial: 2026-12-04T11-00-00Z (a selection: 1 of 8 scenarios))")
	assert.Contains(t, stdout.String(), "paired over 8 scenario(s)")

	stdout.Reset()
	require.Equal(t, 0, run([]string{"gate", "-dir", root, "-run", "2026-12-04T12-00-00Z", "-base", "2026-12-04T11-00-00Z"}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "against 2026-12-04T11-00-00Z, named as the baseline, is partial (a selection: 1 of 8 scenarios)")
}
