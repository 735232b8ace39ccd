package decide

import (
	"math"

	"github.com/rookgo/rookgo/internal/record"
)

// This file is where statuses are counted: a verdict's rows, a repeat's attempts, a run's
// totals. Everything that shows a count (report.yaml, the markdown, the HTML page, the
// view, the test log, the gate) reads these.

// CountRows fills in a verdict's counts from its rows; Rook's compliance is over the decided
// criteria: Unable to Verify is in neither part.
func CountRows(v *record.Verdict) {
	v.PassCount, v.FailCount, v.UnableToVerifyCount = 0, 0, 0
	for _, r := range v.Criteria {
		switch r.Status {
		case record.Pass:
			v.PassCount++
		case record.Fail:
			v.FailCount++
		default:
			v.UnableToVerifyCount++
		}
	}
	v.CompliancePercentage = 0
	if decided := v.PassCount + v.FailCount; decided > 0 {
		v.CompliancePercentage = int(math.Round(float64(v.PassCount) * 100 / float64(decided)))
	}
}

// CountAttempts counts a repeated scenario's attempts by status: passed, failed, and undecided
// (Unable to Verify or not judged).
func CountAttempts(attempts []record.AttemptStatus) (passed, failed, undecided int) {
	for _, a := range attempts {
		switch a.Status {
		case record.Pass:
			passed++
		case record.Fail:
			failed++
		default:
			undecided++
		}
	}
	return passed, failed, undecided
}

// Flaky reports whether attempts disagree on something decided: a Pass and a Fail among
// them. An attempt that could not be decided disagrees with nothing.
func Flaky(attempts []record.AttemptStatus) bool {
	passed, failed, _ := CountAttempts(attempts)
	return passed > 0 && failed > 0
}

// AddToTotals counts one scenario's verdict into a run's totals: its status, whether the attack
// landed, whether it may have evaded, and whether its failure was excused. Planned,
// executed, not run and unrunnable are the plan's, and untrusted (a verdict that does not
// read as its records say) the reader's: the caller sets them.
func AddToTotals(t *record.Totals, v *record.Verdict) {
	switch v.Status {
	case record.Pass:
		t.Passed++
	case record.Fail:
		t.Failed++
	case record.UnableToVerify:
		t.Unverifiable++
	default:
		t.Unjudged++
	}
	if v.Attack.IsCompromised() {
		t.Compromised++
	}
	if v.PossibleEvasion {
		t.PossibleEvasion++
	}
	if Excused(v) {
		t.Excused++
	}
}

// CloseTotals derives the totals that follow from the others: not run, decided, pass rate.
func CloseTotals(t *record.Totals) {
	t.NotRun = t.Planned - t.Executed
	t.Decided = t.Passed + t.Failed
	t.PassRate = 0
	if t.Decided > 0 {
		t.PassRate = float64(t.Passed) / float64(t.Decided)
	}
}
