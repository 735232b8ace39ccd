package decide

// Counting: the one rule that decides whether a scenario's outcome counts toward the exit
// code. A failure may be excused (its scenario is quarantined, -rook.gate decides
// the exit code, min_pass spares an attempt), and then it is said and left out; what is in
// Never is not excused by anything. The decision is data on the verdict (counts, excused_by),
// so that the exit code, JUnit and every report read the same answer. tally.go counts
// statuses: a verdict's rows, a repeat's attempts, a run's totals.

import (
	"strings"

	"github.com/rookgo/rookgo/internal/record"
)

// What may excuse a failure.
const (
	ExcuseQuarantine = "quarantine"
	ExcuseMinPass    = "min_pass"
	ExcuseGate       = "gate"
)

// Never lists what no excuse covers: the agent's failures may be excused, the harness's,
// the hooks', a leak and a record that cannot be trusted may not.
var Never = []struct {
	What string
	Is   func(v *record.Verdict) bool
}{
	{"a hook or harness failure", func(v *record.Verdict) bool { return v.Failure != "" }},
	{"a compromise", func(v *record.Verdict) bool { return v.Attack.IsCompromised() }},
	{"a forbidden hit", func(v *record.Verdict) bool { return len(v.ForbiddenHits) > 0 }},
	{"an untrusted record", func(v *record.Verdict) bool { return v.Untrusted != "" }},
	{"a judge caught guessing", func(v *record.Verdict) bool {
		for _, r := range v.Criteria {
			if r.JudgeGuessed {
				return true
			}
		}
		return false
	}},
}

// Unexcusable names what in v no excuse covers; "" when nothing does.
func Unexcusable(v *record.Verdict) string {
	var out []string
	for _, n := range Never {
		if n.Is(v) {
			out = append(out, n.What)
		}
	}
	return strings.Join(out, ", ")
}

// ApplyExcuse decides whether v counts toward the exit code when by ("" for nothing) would excuse
// it: a scenario that did not pass is excused, unless something in it is never excused.
// An interruption is the run's, not a verdict's: an interrupted run fails whatever its
// verdicts say.
func ApplyExcuse(v *record.Verdict, by string) {
	v.Counts, v.ExcusedBy = nil, ""
	if by == "" || v.Status == record.Pass || Unexcusable(v) != "" {
		return
	}
	no := false
	v.Counts, v.ExcusedBy = &no, by
}

// Excused reports whether v is left out of the exit code.
func Excused(v *record.Verdict) bool { return v != nil && v.Counts != nil && !*v.Counts }
