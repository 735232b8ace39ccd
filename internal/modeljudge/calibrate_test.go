package modeljudge

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// thirty are 30 labelled rows of one criterion, by (judge, person, count, the judge's
// confidence):
//
//	            person Pass  Fail  UtV   judge total
//	judge Pass        15     2     1     18
//	judge Fail         1     7     0      8
//	judge UtV          1     1     2      4
//	person total      17    10     3     30
//
// Agreement is 24/30 = 0.8. Chance agreement is (18*17 + 8*10 + 4*3) / 30^2 = 398/900, so
// kappa = (720/900 - 398/900) / (1 - 398/900) = 322/502 = 161/251 = 0.641434...
// The judge said High on the 22 agreeing Pass and Fail rows and Medium or Low on the rest.
func thirty() []LabelPair {
	P, F, U := record.Pass, record.Fail, record.UnableToVerify
	var pairs []LabelPair
	add := func(judge, person record.Status, n int, confidence string) {
		for range n {
			pairs = append(pairs, LabelPair{Key: "SC-1/C1", Judge: judge, Person: person, Confidence: confidence})
		}
	}
	add(P, P, 15, "High")
	add(P, F, 2, "Medium")
	add(P, U, 1, "Low")
	add(F, P, 1, "Medium")
	add(F, F, 7, "High")
	add(U, P, 1, "Low")
	add(U, F, 1, "Low")
	add(U, U, 2, "Low")
	return pairs
}

func TestKappaMatchesTheHandComputedValue(t *testing.T) {
	s := Calibrate(thirty(), 0.9)
	assert.Equal(t, 30, s.N)
	assert.Equal(t, 24, s.Agree)
	assert.InDelta(t, 0.8, s.Agreement, 1e-12)
	require.True(t, s.KappaDefined)
	assert.InDelta(t, 161.0/251.0, s.Kappa, 1e-12)
	assert.Equal(t, [3][3]int{{15, 2, 1}, {1, 7, 0}, {1, 1, 2}}, s.Confusion)
	assert.Equal(t, CalibrationLevel{N: 22, Agree: 22, Agreement: 1}, s.AtOrAbove["High"])
	assert.Equal(t, CalibrationLevel{N: 25, Agree: 22, Agreement: 0.88}, s.AtOrAbove["Medium"])
	assert.Equal(t, "High", s.Reaches, "only High reaches 0.9")
	assert.Equal(t, "Medium", Calibrate(thirty(), 0.85).Reaches)
	assert.Equal(t, "agrees with people 24 of 30", s.Says())

	one := Calibrate([]LabelPair{{Judge: record.Pass, Person: record.Pass}, {Judge: record.Pass, Person: record.Pass}}, 0.9)
	assert.False(t, one.KappaDefined, "both sides said Pass every time: chance explains it all")
	assert.Equal(t, 1.0, one.Agreement)
	assert.Equal(t, Calibration{AtOrAbove: map[string]CalibrationLevel{}}, Calibrate(nil, 0.9))

	var b bytes.Buffer
	require.NoError(t, WriteCalibration(&b, thirty(), 0.9))
	assert.Contains(t, b.String(), "SC-1/C1: agreement 0.800 (24 of 30), kappa 0.641; reaches 0.90 from High confidence up (22 of 22)")
	assert.Contains(t, b.String(), "all criteria: agreement 0.800 (24 of 30), kappa 0.641")
}

func TestLabelsNameTheirLineAndKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bank.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`# people's verdicts
- {run: 2026-12-04T07-41-27Z, scenario: SC-1, attempt: 1, criterion: C1, status: Pass, by: ana}
- {run: 2026-12-04T07-41-27Z, scenario: SC-1, criterion: C2, status: Passed}
- {run: ../elsewhere, scenario: SC-1, criterion: C1, status: Fail}
- {run: R1, scenario: SC-1, criterion: C1, status: Fail, verdict: Fail}
`), 0o644))
	labels, err := LoadLabels(path)
	require.Error(t, err)
	assert.Len(t, labels, 1)
	assert.Equal(t, 1, labels[0].Attempt)
	assert.Contains(t, err.Error(), path+`:3: key status: "Passed" is not Pass, Fail or Unable to Verify`)
	assert.Contains(t, err.Error(), path+`:4: key run: "../elsewhere" is not an id`)
	assert.Contains(t, err.Error(), path+`:5: unknown key "verdict"`)

	none, err := LoadLabels(filepath.Join(t.TempDir(), "missing.yaml"))
	assert.NoError(t, err)
	assert.Empty(t, none)
}

// Labels are paired with the judge's rows in the records; a label whose row is missing, or
// was not decided by a model judge, is named by its line.
func TestPairsFindTheJudgesRows(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "bank", "R1", "scenarios", "SC-1")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, store.WriteFile(filepath.Join(dir, "hooks.json"), []byte("{}")))
	v := &record.Verdict{ScenarioID: "SC-1", Status: record.Fail, Criteria: []record.Row{
		{CriterionID: "C1", Check: "llm_judge", Status: record.Fail, Confidence: "High", Judge: "m"},
		{CriterionID: "C2", Check: "contains", Status: record.Pass, Confidence: "High"}}}
	require.NoError(t, store.NewRedactor(nil).WriteVerdict(dir, v))
	labels := []Label{
		{Run: "R1", Scenario: "SC-1", Attempt: 1, Criterion: "C1", Status: record.Pass, line: 2},
		{Run: "R1", Scenario: "SC-1", Attempt: 1, Criterion: "C2", Status: record.Pass, line: 3},
		{Run: "R1", Scenario: "SC-1", Attempt: 1, Criterion: "C9", Status: record.Pass, line: 4},
		{Run: "R2", Scenario: "SC-1", Attempt: 1, Criterion: "C1", Status: record.Pass, line: 5},
	}
	pairs, err := PairLabels(root, "bank", "labels/bank.yaml", labels)
	assert.Equal(t, []LabelPair{{Key: "SC-1/C1", Judge: record.Fail, Confidence: "High", Person: record.Pass}}, pairs)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "labels/bank.yaml:3: SC-1 C2 of run R1 was not decided by a model judge")
	assert.Contains(t, err.Error(), "labels/bank.yaml:4: run R1 has no criterion C9 in SC-1")
	assert.Contains(t, err.Error(), "labels/bank.yaml:5: ")
}
