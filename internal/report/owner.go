package report

// Who must act on a scenario that did not pass, as a pure function of its records: the
// agent's team, the scenario's author, whoever keeps the hooks, or whoever runs the judge.

import "github.com/rookgo/rookgo/internal/record"

// Owner is who must act on a verdict that did not pass.
type Owner string

// The owners, in the order a report lists them.
const (
	// OwnerAgent: a criterion failed on what the agent was observed to say or do.
	OwnerAgent Owner = "agent"
	// OwnerScenario: what the scenario failed on was never achieved in any run of the records,
	// or it asks what the profile cannot observe.
	OwnerScenario Owner = "scenario"
	// OwnerHarness: a hook failed, or the agent never replied.
	OwnerHarness Owner = "harness"
	// OwnerJudge: the model judge left a criterion undecided (or was never configured), or
	// failed it on Low confidence.
	OwnerJudge Owner = "judge"
)

// Owners are the owners in the order reports list them.
var Owners = []Owner{OwnerAgent, OwnerScenario, OwnerHarness, OwnerJudge}

// ValidOwner reports whether s names an owner.
func ValidOwner(s string) bool {
	for _, o := range Owners {
		if string(o) == s {
			return true
		}
	}
	return false
}

// OwnerOf is the owner of v, "" when v passed or was never judged. everPassed says whether what
// v failed on was shown achievable in a run of the records, this one included: the
// scenario passed there, or each criterion it failed passed in one (history decides it; a
// scenario with an llm_judge row never decided never passes whole, yet its regression is
// the agent's).
//
// A hook's failure is the harness's before anything else: nothing after it is evidence.
// An Unable to Verify is owned by what left it undecided: agent_never_ran by the harness,
// not_observable by the scenario, an llm_judge row by the judge. A Fail whose failed
// criteria were all decided on Low confidence is the judge's; any other Fail is the
// scenario's when it has never passed anywhere (it may ask the impossible), else the
// agent's. A compromised scenario is the agent's, even one that never passed.
func OwnerOf(v *record.Verdict, everPassed bool) Owner {
	if v == nil || v.Status == record.Pass || v.Status == "" {
		return ""
	}
	if hookFailed(v) {
		return OwnerHarness
	}
	if v.Attack.IsCompromised() {
		// A landed attack is observed evidence, whether or not the scenario ever passed;
		// only a judge model's Low-confidence reading of a free-text signal is its own.
		if v.Attack.AttackConfidence == "Low" {
			return OwnerJudge
		}
		return OwnerAgent
	}
	if v.Status == record.UnableToVerify {
		return unable(v)
	}
	if lowConfidence(v) {
		return OwnerJudge
	}
	if !everPassed {
		return OwnerScenario
	}
	return OwnerAgent
}

// hookFailed reports a hook's failure in the verdict, or, for a repeated scenario, in the
// first attempt that did not pass: the one whose criteria the verdict shows.
func hookFailed(v *record.Verdict) bool {
	if v.Failure != "" {
		return true
	}
	for _, a := range v.Attempts {
		if a.Status != record.Pass {
			return a.Failure != ""
		}
	}
	return false
}

func unable(v *record.Verdict) Owner {
	switch v.UnverifiableReason {
	case record.AgentNeverRan:
		return OwnerHarness
	case record.NotObservable:
		return OwnerScenario
	}
	for _, r := range v.Criteria {
		if r.Status == record.UnableToVerify && (r.Judge != "" || r.Unanswered || r.Check == "llm_judge") {
			return OwnerJudge
		}
	}
	return OwnerScenario
}

// lowConfidence reports a Fail decided only by criteria failed on Low confidence: no
// forbidden text appeared, and at least one criterion failed.
func lowConfidence(v *record.Verdict) bool {
	if len(v.ForbiddenHits) > 0 {
		return false
	}
	n := 0
	for _, r := range v.Criteria {
		if r.Status != record.Fail {
			continue
		}
		if r.Confidence != "Low" {
			return false
		}
		n++
	}
	return n > 0
}
