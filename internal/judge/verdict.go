package judge

import (
	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
)

// Status is a criterion's or a scenario's outcome: Pass, Fail or Unable to Verify.
type Status = check.Status

// The three outcomes. Unable to Verify is never folded into Pass or Fail.
const (
	Pass           = check.Pass
	Fail           = check.Fail
	UnableToVerify = check.UnableToVerify
)

// Why a criterion or scenario is Unable to Verify.
const (
	AgentNeverRan = check.AgentNeverRan
	NotObservable = check.NotObservable
	Undecidable   = check.Undecidable
)

// ScenarioStatus applies the scenario rule: any Fail row or forbidden hit is Fail; else
// any Unable to Verify row is Unable to Verify (with the weightiest reason); else Pass.
// A scenario without a single row to decide it is Unable to Verify (undecidable).
func ScenarioStatus(rows []record.Row, hits []record.ForbiddenHit, forbiddenChecked bool) (Status, string) {
	if len(hits) > 0 {
		return Fail, ""
	}
	reason := ""
	rank := map[string]int{AgentNeverRan: 3, NotObservable: 2, Undecidable: 1}
	utv := false
	for _, r := range rows {
		switch r.Status {
		case Fail:
			return Fail, ""
		case UnableToVerify:
			utv = true
			if rank[r.Reason] > rank[reason] {
				reason = r.Reason
			}
		}
	}
	if utv {
		return UnableToVerify, reason
	}
	if len(rows) == 0 && !forbiddenChecked {
		return UnableToVerify, Undecidable
	}
	return Pass, ""
}
