// Package testkit is what the tests of several packages stand on: run folders written as a
// run writes them (runs.go) and the test agent instrumented with the OpenTelemetry Go SDK
// (otelagent.go). The helpers that link a heavy dependency stay in packages of their own
// (browsertest for Chromium, mcpprobe/mcptest for an MCP server, schematest for the JSON
// Schema validator), so that a test links them only when it uses them: the validator's
// package alone adds 20 ms and 1.8 MB to every start of a binary under -race, and the tests
// that re-execute themselves as hooks start hundreds of times.
package testkit

import (
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// WriteRun writes a run folder: run.yaml with included and skipped scenarios, and for
// each included one, in the order of their ids, hooks.json, snapshot.yaml and a verdict
// bound to them, sealed as a run seals them.
func WriteRun(t testing.TB, dir, id string, verdicts map[string]record.Verdict, skipped ...string) string {
	t.Helper()
	run := record.Run{Version: 1, ID: id, Agent: "fake", Pins: record.Pins{ProfileID: "p", ProfileRevision: "sha256:p"},
		Created: time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)}
	red := store.NewRedactor(nil)
	// run.yaml first, as a run writes it, so that each attempt's records are sealed as they
	// are written (store's manifest); it is written again whole below.
	require.NoError(t, red.WriteRun(filepath.Join(dir, "run.yaml"), run))
	for _, sc := range slices.Sorted(maps.Keys(verdicts)) {
		v := verdicts[sc]
		run.Included = append(run.Included, record.Entry{ScenarioID: sc, Why: "selected"})
		sdir := filepath.Join(dir, "scenarios", sc)
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "hooks.json"), []byte(`{"version": 1}`)))
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "snapshot.yaml"), []byte("id: "+sc+"\n")))
		v.ScenarioID = sc
		for _, a := range v.Attempts { // a repeat's verdict is bound to each attempt's records
			require.NoError(t, store.WriteFile(filepath.Join(sdir, "attempts", strconv.Itoa(a.Attempt), "hooks.json"), []byte(`{"version": 1}`)))
		}
		require.NoError(t, red.WriteVerdict(sdir, &v))
	}
	for _, sc := range skipped {
		run.Skipped = append(run.Skipped, record.Entry{ScenarioID: sc, Why: "not selected: not named by -rook.only"})
	}
	require.NoError(t, red.WriteRun(filepath.Join(dir, "run.yaml"), run))
	return dir
}
