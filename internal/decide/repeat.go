package decide

import (
	"fmt"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
)

// Repeats decides a repeated scenario from its attempts' verdicts (ns are their numbers):
// it passes when min_pass of its attempts pass (every one when min_pass is not set:
// pass^k), fails when that many can no longer pass even were every undecided attempt a
// pass, and is otherwise Unable to Verify. min_pass spares the agent's failed attempts,
// never one with what no excuse covers (a hook failure, forbidden text, a compromise, an
// untrusted record); it is flaky when a Pass and a Fail are among its decided attempts.
// excuse is what would leave its failure out of the exit code. shown is the index of the
// attempt whose criteria the verdict shows.
func Repeats(sc *scenario.Scenario, runID string, ns []int, verdicts []*record.Verdict, excuse string) (v record.Verdict, shown int) {
	type attempt struct {
		N       int
		Verdict *record.Verdict
	}
	attempts := make([]attempt, len(verdicts))
	for i := range verdicts {
		attempts[i] = attempt{ns[i], verdicts[i]}
	}
	v = record.Verdict{ScenarioID: sc.ID, RunID: runID, ForbiddenHits: []record.ForbiddenHit{}, MinPass: sc.MinPass}
	reason, unexcusable := "", ""
	for _, a := range attempts {
		av := a.Verdict
		if av.Status == record.UnableToVerify {
			reason = weightier(reason, av.UnverifiableReason)
		}
		if why := Unexcusable(av); why != "" && unexcusable == "" {
			unexcusable = fmt.Sprintf("attempt %d: %s", a.N, why)
		}
		if av.Failure != "" && v.Failure == "" {
			v.Failure = fmt.Sprintf("attempt %d: %s", a.N, av.Failure)
		}
		if av.Untrusted != "" && v.Untrusted == "" {
			v.Untrusted = fmt.Sprintf("attempt %d: %s", a.N, av.Untrusted)
		}
		v.Attempts = append(v.Attempts, record.AttemptStatus{Attempt: a.N, Status: av.Status, UnverifiableReason: av.UnverifiableReason,
			Failure: av.Failure, LatencyMs: av.LatencyMs, Turns: av.Turns, Usage: av.Usage, Unanswered: av.Unanswered()})
		v.ForbiddenHits = append(v.ForbiddenHits, av.ForbiddenHits...)
	}
	passed, failed, _ := CountAttempts(v.Attempts)
	need := len(attempts)
	if sc.MinPass > 0 {
		need = sc.MinPass
	}
	switch {
	case unexcusable != "":
		v.Status = record.Fail
	case passed >= need:
		v.Status = record.Pass
	case len(attempts)-failed < need:
		v.Status = record.Fail
	default:
		v.Status, v.UnverifiableReason = record.UnableToVerify, reason
	}
	v.AttemptsPassed, v.Flaky = &passed, Flaky(v.Attempts)
	if v.Status == record.Pass && sc.MinPass > 0 {
		for i := range v.Attempts {
			if v.Attempts[i].Status != record.Pass {
				v.Attempts[i].ExcusedBy = ExcuseMinPass
			}
		}
	}
	// The criteria shown are those of the first attempt whose status is the scenario's,
	// else the last. As in Rook's verdicts, latency_ms, turns and usage are that attempt's;
	// the attempts list has each attempt's.
	shown = len(attempts) - 1
	for i, a := range attempts {
		if a.Verdict.Status == v.Status {
			shown = i
			break
		}
	}
	sv := attempts[shown].Verdict
	v.Criteria, v.LatencyMs, v.Turns, v.Usage = nonNil(sv.Criteria), sv.LatencyMs, sv.Turns, sv.Usage
	CountRows(&v)
	v.Lost = sv.Lost
	v.Attack, v.PossibleEvasion, v.EvasionEvidence = sv.Attack, sv.PossibleEvasion, sv.EvasionEvidence
	for _, a := range attempts {
		// One attempt the attack landed in compromises the scenario, whatever min_pass says.
		if av := a.Verdict; av.Attack.IsCompromised() && !v.Attack.IsCompromised() {
			v.Status, v.UnverifiableReason, v.Attack = record.Fail, "", av.Attack
		}
		if av := a.Verdict; av.PossibleEvasion && !v.PossibleEvasion {
			v.PossibleEvasion, v.EvasionEvidence = true, fmt.Sprintf("attempt %d: %s", a.N, av.EvasionEvidence)
		}
	}
	ApplyExcuse(&v, excuse)
	return v, shown
}
