package report

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

// Summarize counts each planned scenario from its verdict: a verdict that does not match
// the hooks.json beside it is unjudged and untrusted, never what it says; a planned
// scenario with no folder is not run; the totals keep their invariants.
func TestSummarizeCountsOnlyTrustedVerdicts(t *testing.T) {
	dir := t.TempDir()
	run := record.Run{ID: "R", Agent: "a", Pins: record.Pins{ProfileID: "p"}}
	verdicts := map[string]record.Verdict{
		"SC-1": {Status: record.Pass, Criteria: []record.Row{}, Usage: record.Tokens(10, 2), LatencyMs: 100},
		"SC-2": {Status: record.Fail, Criteria: []record.Row{{CriterionID: "C1", Status: record.Fail, Achieved: "no"}}, LatencyMs: 300},
		"SC-3": {Status: record.Pass, Criteria: []record.Row{}}, // forged below
	}
	red := store.NewRedactor(nil)
	for id, v := range verdicts {
		run.Included = append(run.Included, record.Entry{ScenarioID: id})
		sdir := filepath.Join(dir, "scenarios", id)
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "hooks.json"), []byte(`{"version": 1}`)))
		v.ScenarioID = id
		v.HooksSHA256 = store.HooksDigest(sdir, &v)
		if id == "SC-3" {
			v.HooksSHA256 = "0000"
		}
		require.NoError(t, red.YAML(filepath.Join(sdir, "verdict.yaml"), v))
	}
	run.Included = append(run.Included, record.Entry{ScenarioID: "SC-4"})
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755))

	rep, err := Summarize(dir, run, record.PrepareSummary{Status: "not_defined"}, time.Second, time.Now())
	require.ErrorIs(t, err, store.ErrUntrusted)
	assert.Equal(t, record.Totals{Planned: 4, Executed: 3, Passed: 1, Failed: 1, Unjudged: 1, Untrusted: 1, NotRun: 1,
		Decided: 2, PassRate: 0.5}, rep.Totals)
	assert.NoError(t, rep.Totals.Check())
	assert.Equal(t, int64(10), rep.Metrics.TokensIn)
	assert.Equal(t, int64(2), rep.Metrics.TokensOut)
	require.Len(t, rep.Clusters, 1)
	assert.Equal(t, "failed", rep.Clusters[0].Kind)
}

// The judge's totals count every attempt's exchange: a repeated scenario's three attempts
// are three requests judged, with three attempts' controls, not the one its verdict shows.
func TestJudgeTotalsCountEveryAttempt(t *testing.T) {
	dir := t.TempDir()
	red := store.NewRedactor(nil)
	judged := func(controls int) *record.JudgeInfo {
		return &record.JudgeInfo{Model: "m", Controls: controls, Usage: record.Tokens(100, 10)}
	}
	write := func(sdir string, v record.Verdict) {
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "hooks.json"), []byte(`{"version": 1}`)))
		v.HooksSHA256 = store.HooksDigest(sdir, &v)
		require.NoError(t, red.YAML(filepath.Join(sdir, "verdict.yaml"), v))
	}
	run := record.Run{ID: "R", Included: []record.Entry{{ScenarioID: "SC-1"}, {ScenarioID: "SC-2"}}}
	write(filepath.Join(dir, "scenarios", "SC-1"), record.Verdict{ScenarioID: "SC-1", Status: record.Pass, Criteria: []record.Row{}, Judge: judged(2)})
	sc2 := filepath.Join(dir, "scenarios", "SC-2")
	var attempts []record.AttemptStatus
	for n := 1; n <= 3; n++ {
		write(filepath.Join(sc2, "attempts", fmt.Sprint(n)), record.Verdict{ScenarioID: "SC-2", Status: record.Pass, Criteria: []record.Row{}, Judge: judged(3)})
		attempts = append(attempts, record.AttemptStatus{Attempt: n, Status: record.Pass})
	}
	v := record.Verdict{ScenarioID: "SC-2", Status: record.Pass, Criteria: []record.Row{}, Judge: judged(3), Attempts: attempts}
	v.HooksSHA256 = store.HooksDigest(sc2, &v)
	require.NoError(t, red.YAML(filepath.Join(sc2, "verdict.yaml"), v))

	rep, err := Summarize(dir, run, record.PrepareSummary{Status: "not_defined"}, time.Second, time.Now())
	require.NoError(t, err)
	require.Len(t, rep.Judges, 1)
	assert.Equal(t, 4, rep.Judges[0].Judged, "one request for SC-1, three for SC-2's attempts")
	assert.Equal(t, 11, rep.Judges[0].Controls)
	assert.Equal(t, int64(400), rep.Judges[0].TokensIn)
}
