package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// run writes a run of agent "fake" named by its start time, with a verdict per scenario
// ("" for one with records and no verdict), each bound to a hooks.json whose open starts
// at 10:00:00 and whose collect ends ms later.
func run(t *testing.T, root, id string, ms int, verdicts map[string]record.Status) string {
	t.Helper()
	dir := filepath.Join(root, "fake", id)
	r := record.Run{Version: 1, ID: id, Agent: "fake", Pins: record.Pins{ProfileID: "p"}}
	red := store.NewRedactor(nil)
	require.NoError(t, red.WriteRun(filepath.Join(dir, "run.yaml"), r)) // first, as a run writes it: its records are sealed
	for sc, st := range verdicts {
		r.Included = append(r.Included, record.Entry{ScenarioID: sc, Why: "selected"})
		sdir := filepath.Join(dir, "scenarios", sc)
		hooks := `{"version": 1, "phases": {"open": {"ran": true, "ok": true, "at": "2026-12-04T10:00:00Z", "ended_at": "2026-12-04T10:00:00.1Z"},
			"collect": {"ran": true, "ok": true, "at": "2026-12-04T10:00:00.2Z", "ended_at": "2026-12-04T10:00:0` + sec(ms) + `Z"}}}`
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "hooks.json"), []byte(hooks)))
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "snapshot.yaml"), []byte("id: "+sc+"\ntitle: the "+sc+"\n")))
		if st == "" {
			continue
		}
		v := record.Verdict{ScenarioID: sc, Status: st, Criteria: []record.Row{}}
		if st == record.Fail {
			v.Criteria = []record.Row{{CriterionID: "C2", Status: record.Fail, Confidence: "High"}}
		}
		require.NoError(t, red.WriteVerdict(sdir, &v))
	}
	require.NoError(t, red.WriteRun(filepath.Join(dir, "run.yaml"), r))
	return dir
}

func sec(ms int) string { return string(rune('0'+ms/1000)) + "." + string(rune('0'+ms/100%10)) }

func TestLoad(t *testing.T) {
	root := t.TempDir()
	run(t, root, "2026-12-01T10-00-00Z", 1500, map[string]record.Status{"SC-1": record.Pass, "SC-2": record.Fail})
	run(t, root, "2026-12-02T10-00-00Z", 2000, map[string]record.Status{"SC-1": record.Fail, "SC-2": record.Fail, "SC-3": ""})
	newest := run(t, root, "2026-12-03T10-00-00Z", 3000, map[string]record.Status{"SC-1": record.Pass, "SC-2": record.UnableToVerify})
	// A verdict whose hooks.json changed since it was judged is not trusted, whatever it says.
	hooks := filepath.Join(newest, "scenarios", "SC-2", "hooks.json")
	data, err := os.ReadFile(hooks)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(hooks, append(data, ' '), 0o644))

	h := LoadHistory(root, "fake")
	require.Len(t, h.Runs, 3)
	assert.Equal(t, "2026-12-03T10-00-00Z", h.Runs[0].ID, "newest first")
	status := func(id string) []string {
		var out []string
		for _, e := range h.Scenarios[id] {
			out = append(out, e.Status)
		}
		return out
	}
	assert.Equal(t, []string{"Pass", "Fail", "Pass"}, status("SC-1"))
	assert.Equal(t, []string{Untrusted, "Fail", "Fail"}, status("SC-2"))
	assert.Equal(t, []string{NotIncluded, NotJudged, NotIncluded}, status("SC-3"))
	assert.Equal(t, []string{"C2"}, h.Scenarios["SC-1"][1].Failed)
	assert.Equal(t, []int64{3000, 2000, 1500}, []int64{h.Scenarios["SC-1"][0].DurationMs, h.Scenarios["SC-1"][1].DurationMs, h.Scenarios["SC-1"][2].DurationMs})
	assert.Equal(t, int64(2000), h.Scenarios["SC-3"][1].DurationMs, "records without a verdict still say how long they took")

	assert.True(t, h.EverPassed("SC-1"))
	assert.False(t, h.EverPassed("SC-2"))
	assert.False(t, h.Flaky("SC-1"), "Pass, Fail, Pass over three runs is a regression and a fix, not flakiness: no run's attempts disagreed")
	assert.False(t, h.Flaky("SC-2"), "it failed whenever it was decided")
	assert.Equal(t, OwnerAgent, h.Owner("SC-1", 1))
	assert.Equal(t, OwnerScenario, h.Owner("SC-2", 1), "SC-2 never passed")
	assert.Equal(t, Owner(""), h.Owner("SC-2", 0), "an untrusted verdict has no owner to name")
	head, ok := h.Snapshot("SC-3")
	assert.True(t, ok)
	assert.Equal(t, "the SC-3", head.Title)
	assert.Equal(t, map[string]bool{"SC-1": true}, PassedAnywhere(root, "fake", map[string][]string{"SC-1": {"C2"}, "SC-2": {"C2"}, "SC-9": nil}))
}

// A scenario whose llm_judge row is never decided never passes whole: its regression (a
// criterion that passed before and fails now) is still the agent's, and a criterion that
// never passed anywhere is the scenario's.
func TestARegressionBesideAnUndecidedJudgeRowIsTheAgents(t *testing.T) {
	root := t.TempDir()
	red := store.NewRedactor(nil)
	write := func(id string, rows ...record.Row) {
		dir := filepath.Join(root, "fake", id)
		r := record.Run{Version: 1, ID: id, Agent: "fake", Pins: record.Pins{ProfileID: "p"}, Included: []record.Entry{{ScenarioID: "SC-1", Why: "selected"}}}
		require.NoError(t, red.WriteRun(filepath.Join(dir, "run.yaml"), r))
		sdir := filepath.Join(dir, "scenarios", "SC-1")
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "hooks.json"), []byte(`{"version": 1}`)))
		v := record.Verdict{ScenarioID: "SC-1", Status: record.UnableToVerify, Criteria: rows}
		for _, row := range rows {
			if row.Status == record.Fail {
				v.Status = record.Fail
			}
		}
		require.NoError(t, red.WriteVerdict(sdir, &v))
	}
	judge := record.Row{CriterionID: "C3", Check: "llm_judge", Status: record.UnableToVerify, Reason: record.Undecidable}
	write("2026-12-01T10-00-00Z", record.Row{CriterionID: "C1", Status: record.Pass}, record.Row{CriterionID: "C2", Status: record.Fail, Confidence: "High"}, judge)
	write("2026-12-02T10-00-00Z", record.Row{CriterionID: "C1", Status: record.Fail, Confidence: "High"}, record.Row{CriterionID: "C2", Status: record.Fail, Confidence: "High"},
		record.Row{CriterionID: "C4", Status: record.Fail, Confidence: "High"}, judge)
	write("2026-12-03T10-00-00Z", record.Row{CriterionID: "C1", Status: record.Fail, Confidence: "High"}, record.Row{CriterionID: "C2", Status: record.Pass}, judge)

	h := LoadHistory(root, "fake")
	require.Len(t, h.Runs, 3)
	assert.False(t, h.EverPassed("SC-1"), "never passed whole")
	assert.Equal(t, OwnerAgent, h.Owner("SC-1", 0), "C1 passed on 12-01 and fails now: the agent's regression")
	assert.Equal(t, OwnerScenario, h.Owner("SC-1", 1), "C1 and C2 each passed in some run, C4 in none: it may ask the impossible")
	assert.Equal(t, OwnerAgent, h.Owner("SC-1", 2), "C2 passed in a run of the records (12-03)")
	assert.Equal(t, map[string]bool{"SC-1": true}, PassedAnywhere(root, "fake", map[string][]string{"SC-1": {"C1", "C2"}}))
	assert.Empty(t, PassedAnywhere(root, "fake", map[string][]string{"SC-1": {"C1", "C4"}}))
}

// Flaky is a run's attempts disagreeing: a Pass and a Fail among one run's decided attempts.
func TestFlakyIsWithinARun(t *testing.T) {
	root := t.TempDir()
	dir := run(t, root, "2026-12-01T10-00-00Z", 1500, map[string]record.Status{"SC-1": record.Pass})
	sdir := filepath.Join(dir, "scenarios", "SC-1")
	v := record.Verdict{ScenarioID: "SC-1", Status: record.Pass, Criteria: []record.Row{}, Flaky: true,
		Attempts: []record.AttemptStatus{{Attempt: 1, Status: record.Pass}, {Attempt: 2, Status: record.Fail}}}
	for _, n := range []string{"1", "2"} { // a repeat's verdict is bound to each attempt's records
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "attempts", n, "hooks.json"), []byte(`{"version": 1}`)))
	}
	require.NoError(t, store.NewRedactor(nil).WriteVerdict(sdir, &v))
	run(t, root, "2026-12-02T10-00-00Z", 1500, map[string]record.Status{"SC-1": record.Pass})
	assert.True(t, LoadHistory(root, "fake").Flaky("SC-1"))
}
