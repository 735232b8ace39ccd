package report

import (
	"bytes"
	"encoding/json"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/record"
)

// build is Build, failing the test on an error, and closed when the test ends.
func build(t *testing.T, dir, base string) *Report {
	t.Helper()
	r, err := Build(dir, base)
	require.NoError(t, err)
	t.Cleanup(r.Close)
	return r
}

// rowsOf is every row of l, in order.
func rowsOf[T any](t *testing.T, l *Rows[T]) []T {
	t.Helper()
	out := slices.Collect(l.All())
	require.NoError(t, l.Err())
	return out
}

// rows keeps list, removed when the test ends.
func rows[T any](t *testing.T, list ...T) Rows[T] {
	t.Helper()
	var l Rows[T]
	for _, v := range list {
		l.add(v)
	}
	t.Cleanup(l.close)
	require.NoError(t, l.Err())
	return l
}

// Rows are kept in a file, read back in order as often as they are asked for, edited in
// place, written by the JSON and YAML reports as a list, and their file is removed on
// close.
func TestRowsKeepTheirOrderOnDisk(t *testing.T) {
	var l Rows[Failure]
	assert.Empty(t, slices.Collect(l.All()), "no rows, no file")
	js, err := json.Marshal(&l)
	require.NoError(t, err)
	assert.JSONEq(t, `[]`, string(js), "an empty list is written as one, not null")

	for _, id := range []string{"SC-1", "SC-2", "SC-3"} {
		l.add(Failure{ScenarioID: id, CriterionID: "C1", Evidence: "said \"<b>\"\nand more"})
	}
	require.NotNil(t, l.f)
	name := l.f.Name()
	if runtime.GOOS != "windows" {
		assert.NoFileExists(t, name, "unlinked once made: a killed process leaves nothing")
	}
	ids := func() (out []string) {
		for f := range l.All() {
			out = append(out, f.ScenarioID)
		}
		return out
	}
	assert.Equal(t, []string{"SC-1", "SC-2", "SC-3"}, ids())
	assert.Equal(t, []string{"SC-1", "SC-2", "SC-3"}, ids(), "read again from the start")
	for f := range l.All() {
		assert.Equal(t, "SC-1", f.ScenarioID, "stopping early stops")
		break
	}
	first, ok := l.First()
	assert.True(t, ok)
	assert.Equal(t, "said \"<b>\"\nand more", first.Evidence)

	l.edit(func(f *Failure) { f.Owner = "agent" })
	assert.NotEqual(t, name, l.f.Name(), "an edit writes a new file")
	assert.NoFileExists(t, name, "and removes the old one")
	assert.Equal(t, 3, l.Len())
	for f := range l.All() {
		assert.Equal(t, "agent", string(f.Owner))
	}

	js, err = json.Marshal(&l)
	require.NoError(t, err)
	var back []Failure
	require.NoError(t, json.Unmarshal(js, &back))
	assert.Equal(t, rowsOf(t, &l), back)
	var ym bytes.Buffer
	require.NoError(t, yaml.NewEncoder(&ym).Encode(struct {
		Failed *Rows[Failure] `yaml:"failed"`
	}{&l}))
	assert.Contains(t, ym.String(), "failed:\n    - scenario_id: SC-1\n")

	name = l.f.Name()
	l.close()
	assert.NoFileExists(t, name)
	assert.NoError(t, l.Err())
	assert.Empty(t, slices.Collect(l.All()))
	assert.EqualError(t, l.Err(), "a report's rows were read after the report was closed", "never an empty list taken for the rows")
	_, err = json.Marshal(&l)
	assert.Error(t, err)
}

// A file that cannot be read back is an error, never a shorter list taken for the whole.
func TestRowsThatCannotBeReadBackAreAnError(t *testing.T) {
	l := rows(t, Failure{ScenarioID: "SC-1"}, Failure{ScenarioID: "SC-2"})
	require.NoError(t, l.w.Flush())
	_, err := l.f.WriteAt([]byte("{\"scenario_id\": \"SC-1\"}\nnot json\n"), 0)
	require.NoError(t, err)
	got := slices.Collect(l.All())
	assert.Len(t, got, 1)
	require.Error(t, l.Err())
	assert.Contains(t, l.Err().Error(), "read a report's rows back from "+l.f.Name())
	_, err = json.Marshal(&l)
	assert.Error(t, err, "the JSON report is not written from part of the rows")
}

// The YAML report writes its lists a row at a time, and says exactly what encoding the
// whole report at once said: rows with text over several lines, long lines, quotes and
// characters YAML escapes, a nested list, an empty list.
func TestTheYAMLReportWritesItsRowsOneAtATime(t *testing.T) {
	long := strings.Repeat("a long reason that goes on ", 12)
	r := &Report{Version: 1, RunID: "r1", Agent: "a", Profile: "p", Headline: "2 of 3 passed",
		Unable: []Reason{{Reason: "no judge", Count: 1, Remedy: "set one", Scenarios: []string{"SC-3"}}},
		Judges: []record.JudgeTotals{{Model: "m", Judged: 2}}}
	for _, sc := range []Scenario{
		{ID: "SC-1", Title: "plain", Status: "Pass"},
		{ID: "SC-2", Title: "two\nlines: here", Status: "Fail", Reason: long, Owner: "agent", Feature: "F-1", Quarantined: "until 2027-01-01: #12"},
		{ID: "SC-3", Title: `quotes "and" 'these' - and: colons`, Status: "Unable to Verify", Reason: "tab\there, \x01 control, é ü",
			Repeat: &RepeatStats{Attempts: 3, Passed: 2}, Change: "new", Never: "a hook failed"},
		{ID: "SC-4", Title: "  leading spaces and a trailing one ", Status: "not run", Reason: "- looks like a list\n- twice\n"},
	} {
		r.Scenarios.add(sc)
	}
	r.Failed.add(Failure{ScenarioID: "SC-2", CriterionID: "C1", Expected: "x", Achieved: "y\nz", Evidence: `"q"`})
	t.Cleanup(func() { r.Scenarios.close(); r.Failed.close() })

	var whole bytes.Buffer
	enc := yaml.NewEncoder(&whole)
	enc.SetIndent(2)
	require.NoError(t, enc.Encode(r))
	require.NoError(t, enc.Close())
	var streamed bytes.Buffer
	require.NoError(t, r.YAML(&streamed))
	assert.Equal(t, whole.String(), streamed.String())
	assert.Contains(t, streamed.String(), "scenarios:\n  - scenario_id: SC-1\n")

	var empty Report
	streamed.Reset()
	require.NoError(t, empty.YAML(&streamed))
	assert.Contains(t, streamed.String(), "failed_criteria: []\n")
	assert.Contains(t, streamed.String(), "scenarios: []\n")
	whole.Reset()
	enc = yaml.NewEncoder(&whole)
	enc.SetIndent(2)
	require.NoError(t, enc.Encode(&empty))
	assert.Equal(t, whole.String(), streamed.String())
}
