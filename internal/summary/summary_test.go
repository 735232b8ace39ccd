package summary

import (
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
