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
	rank := map[string]int{record.AgentNeverRan: 3, record.NotObservable: 2, record.Undecidable: 1}
	utv := false
	for _, r := range rows {
		switch r.Status {
		case record.Fail:
			return record.Fail, ""
		case record.UnableToVerify:
			utv = true
			if rank[r.Reason] > rank[reason] {
				reason = r.Reason
			}
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
