package decide

import (
	"github.com/rookgo/rookgo/internal/record"
)

// scenarioStatus applies the scenario rule: any record.Fail row or forbidden hit is record.Fail; else
// any Unable to Verify row is Unable to Verify (with the weightiest reason); else record.Pass.
// A scenario without a single row to decide it is Unable to Verify (undecidable).
func scenarioStatus(rows []record.Row, hits []record.ForbiddenHit, forbiddenChecked bool) (record.Status, string) {
	if len(hits) > 0 {
		return record.Fail, ""
	}
	reason := ""
	utv := false
	for _, r := range rows {
		switch r.Status {
		case record.Fail:
			return record.Fail, ""
		case record.UnableToVerify:
			utv = true
			reason = weightier(reason, r.Reason)
		}
	}
	if utv {
		return record.UnableToVerify, reason
	}
	if len(rows) == 0 && !forbiddenChecked {
		return record.UnableToVerify, record.Undecidable
	}
	return record.Pass, ""
}

// weightier is the weightier of two Unable to Verify reasons: the agent never ran over
// not observable over undecidable (what to fix first), a when they weigh the same.
func weightier(a, b string) string {
	rank := func(r string) int {
		switch r {
		case record.AgentNeverRan:
			return 3
		case record.NotObservable:
			return 2
		case record.Undecidable:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}
