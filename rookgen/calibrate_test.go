package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// rookgen calibrate over 30 labelled rows prints the agreement and Cohen's kappa computed
// by hand: judge against people, 15 Pass/Pass, 2 Pass/Fail, 1 Pass/UtV, 1 Fail/Pass, 7
// Fail/Fail, 1 UtV/Pass, 1 UtV/Fail, 2 UtV/UtV; agreement 24/30 = 0.8, chance
// (18*17 + 8*10 + 4*3)/900 = 398/900, kappa (720-398)/(900-398) = 322/502 = 0.641.
func TestCalibrateCommand(t *testing.T) {
	root := t.TempDir()
	records := filepath.Join(root, ".rook", "runs")
	P, F, U := record.Pass, record.Fail, record.UnableToVerify
	table := []struct {
		judge, person record.Status
		n             int
	}{{P, P, 15}, {P, F, 2}, {P, U, 1}, {F, P, 1}, {F, F, 7}, {U, P, 1}, {U, F, 1}, {U, U, 2}}
	var labels strings.Builder
	labels.WriteString("# people's statuses for judged rows\n")
	i := 0
	for _, row := range table {
		for range row.n {
			i++
			id := fmt.Sprintf("SC-%02d", i)
			dir := filepath.Join(records, "bank", "R1", "scenarios", id)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, store.WriteFile(filepath.Join(dir, "hooks.json"), []byte("{}")))
			v := &record.Verdict{ScenarioID: id, Status: row.judge, Criteria: []record.Row{
				{CriterionID: "C1", Check: "llm_judge", Status: row.judge, Confidence: "High", Judge: "m"}}}
			require.NoError(t, store.NewRedactor(nil).WriteVerdict(dir, v))
			fmt.Fprintf(&labels, "- {run: R1, scenario: %s, criterion: C1, status: %s}\n", id, row.person)
		}
	}
	require.Equal(t, 30, i)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "labels"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "labels", "bank.yaml"), []byte(labels.String()), 0o644))

	var stdout, stderr bytes.Buffer
	code := run([]string{"calibrate", "-agent", "bank", "-root", root}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "all criteria: agreement 0.800 (24 of 30), kappa 0.641; no confidence level reaches 0.90")
	assert.Contains(t, stdout.String(), "Pass                   15      2                  1")
	t.Logf("rookgen calibrate -agent bank:\n%s", stdout.String()[strings.Index(stdout.String(), "all criteria"):])

	stdout.Reset()
	stderr.Reset()
	code = run([]string{"calibrate", "-agent", "nobody", "-root", root}, &stdout, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "no labelled row of nobody to measure")
}
