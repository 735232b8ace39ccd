package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestMarshalRunReadsBack: run.yaml written entry by entry reads back as the Run it came
// from, and as the same value yaml.v3's own encoding reads back as, for text YAML would
// read as something else.
func TestMarshalRunReadsBack(t *testing.T) {
	odd := []string{"selected", "true", "No", "null", "~", "1.5", "0x1F", "1_000", "- a", "a: b", "a #b", "#x", "'q'", `"dq"`,
		"line\nbreak", " lead", "trail ", "", "tab\there", "ünïcode", "[x]", "{y}", "*alias", "&anchor", "!tag", "%dir", "@x", "`x`",
		"SC-001", "not selected: shard 2/3 runs it (-rook.shard=1/3)", ".hidden", "-rook.only", "1e3", ".inf", "y", "\x01ctl", "a\\b"}
	run := record.Run{Version: 1, ID: "ci-42", Agent: "bank", Created: time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC), PhasesRun: []string{"execute"}, Unrunnable: []record.Entry{}}
	for i, s := range odd {
		run.Included = append(run.Included, record.Entry{ScenarioID: fmt.Sprintf("SC-%d", i), Why: s})
		run.Skipped = append(run.Skipped, record.Entry{ScenarioID: s, Why: s})
		run.Carried = append(run.Carried, s)
	}
	data, err := NewRedactor(nil).MarshalRun(run)
	require.NoError(t, err)
	var back record.Run
	require.NoError(t, yaml.Unmarshal(data, &back), string(data))
	assert.Equal(t, run, back)
	fast, err := UnmarshalRun(data)
	require.NoError(t, err)
	assert.Equal(t, run, fast, "read line by line")

	plain, err := NewRedactor(nil).MarshalYAML(run)
	require.NoError(t, err)
	var viaYAML record.Run
	require.NoError(t, yaml.Unmarshal(plain, &viaYAML))
	assert.Equal(t, viaYAML, back)
	fromYAML, err := UnmarshalRun(plain)
	require.NoError(t, err)
	assert.Equal(t, viaYAML, fromYAML, "yaml.v3's own shape (block literals, single quotes) falls back whole")

	// Flow style, as a person might write it.
	flow, err := UnmarshalRun([]byte("id: x\nincluded: [{scenario_id: SC-1, why: selected}]\ncarried: [SC-1]\n"))
	require.NoError(t, err)
	assert.Equal(t, []record.Entry{{ScenarioID: "SC-1", Why: "selected"}}, flow.Included)
	assert.Equal(t, []string{"SC-1"}, flow.Carried)
	_, err = UnmarshalRun([]byte("id: [x\n"))
	assert.Error(t, err)

	// The why is free text, redacted; the ids are structural, left alone.
	red, err := NewRedactor(map[string]string{"TOKEN": "sekrit-42"}).MarshalRun(record.Run{Included: []record.Entry{{ScenarioID: "SC-1", Why: "token sekrit-42 expired"}}})
	require.NoError(t, err)
	assert.Contains(t, string(red), `why: "token [redacted:TOKEN] expired"`)
	assert.NotContains(t, string(red), "sekrit-42")
}

// A run's head is run.yaml without its plan lists, in the shape written here and in any
// other; WriteRun writes what MarshalRun encodes.
func TestRunHeadLeavesThePlanOut(t *testing.T) {
	run := record.Run{Version: 1, ID: "ci-42", Agent: "bank", Pins: record.Pins{ProfileID: "p1"}, Halted: true, HaltReason: "stop",
		Included: []record.Entry{{ScenarioID: "SC-1", Why: "selected"}, {ScenarioID: "SC-2", Why: "selected"}},
		Skipped:  []record.Entry{{ScenarioID: "SC-3", Why: "excluded"}}, Carried: []string{"SC-1"}}
	dir := t.TempDir()
	red := NewRedactor(nil)
	require.NoError(t, red.WriteRun(filepath.Join(dir, "run.yaml"), run))
	want, err := red.MarshalRun(run)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, "run.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	whole, err := Store{Dir: dir}.Run()
	require.NoError(t, err)
	assert.Equal(t, run.Included, whole.Included)
	head, err := Store{Dir: dir}.RunHead()
	require.NoError(t, err)
	assert.Equal(t, "ci-42", head.ID)
	assert.Equal(t, "p1", head.Pins.ProfileID)
	assert.True(t, head.Halted)
	assert.Empty(t, head.Included)
	assert.Empty(t, head.Skipped)
	assert.Empty(t, head.Carried)

	// The whys a plan repeats are one string.
	assert.Equal(t, unsafe.StringData(whole.Included[0].Why), unsafe.StringData(whole.Included[1].Why))

	// An entry of one line is not the shape written here: yaml.v3 reads the file whole.
	short, err := UnmarshalRun([]byte("id: x\nincluded:\n  - scenario_id: SC-1\nskipped:\n  - scenario_id: SC-2\n    why: w\n"))
	require.NoError(t, err)
	assert.Equal(t, []record.Entry{{ScenarioID: "SC-1"}}, short.Included)
	assert.Equal(t, []record.Entry{{ScenarioID: "SC-2", Why: "w"}}, short.Skipped)
	_, err = Store{Dir: t.TempDir()}.RunHead()
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// BenchmarkUnmarshalRun reads the plan of a 5,000-scenario run line by line and with
// yaml.v3 alone.
func BenchmarkUnmarshalRun(b *testing.B) {
	var run record.Run
	for i := range 5000 {
		run.Included = append(run.Included, record.Entry{ScenarioID: fmt.Sprintf("SC-%05d", i), Why: "selected"})
	}
	data, err := NewRedactor(nil).MarshalRun(run)
	require.NoError(b, err)
	b.Run("UnmarshalRun", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := UnmarshalRun(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("yaml.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var r record.Run
			if err := yaml.Unmarshal(data, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMarshalRun writes the plan of a 5,000-scenario run both ways; allocs/op and
// B/op are the point (yaml.v3 alone: some 40 MB).
func BenchmarkMarshalRun(b *testing.B) {
	var run record.Run
	for i := range 5000 {
		run.Included = append(run.Included, record.Entry{ScenarioID: fmt.Sprintf("SC-%05d", i), Why: "selected"})
	}
	red := NewRedactor(map[string]string{"X": "secretvalue"})
	b.Run("MarshalRun", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := red.MarshalRun(run); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("MarshalYAML", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := red.MarshalYAML(run); err != nil {
				b.Fatal(err)
			}
		}
	})
}
