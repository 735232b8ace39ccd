package report

import (
	"fmt"
	"sort"
	"strings"
)

// headline is the run in one line, with what to do next, from the records alone (no
// model): what failed, grouped by the criterion the failures share; what could not be
// verified, by reason, with what would make it checkable; what did not run.
func (r *Report) headline() string {
	t := r.Totals
	failedN, passedN, unjudged, untrusted := r.tally.failed, r.tally.passed, r.tally.unjudged, r.tally.untrusted
	var parts []string
	if c := r.compromisedHeadline(); c != "" {
		parts = append(parts, c)
	}
	if failedN > 0 {
		parts = append(parts, fmt.Sprintf("%d failed%s", failedN, shared(&r.Failed)))
	}
	for _, j := range r.Judges {
		if j.Unanswered > 0 {
			parts = append(parts, fmt.Sprintf("the judge %s never answered %d scenario(s), whose llm_judge rows are Unable to Verify: check ROOK_JUDGE_URL and ROOK_JUDGE_MODEL (rookgen judge-check), then judge again with -rook.run=%s -rook.phases=judge",
				j.Model, j.Unanswered, r.RunID))
		}
	}
	for _, u := range r.Unable {
		parts = append(parts, fmt.Sprintf("%d Unable to Verify (%s): %s", u.Count, u.Reason, u.Remedy))
	}
	if len(untrusted) > 0 {
		parts = append(parts, fmt.Sprintf("%d untrusted (%s): their verdict.yaml did not match their records; judge again with -rook.run=%s -rook.phases=judge",
			len(untrusted), strings.Join(untrusted, ", "), r.RunID))
	}
	if unjudged > 0 {
		parts = append(parts, fmt.Sprintf("%d not judged: continue with -rook.run=%s", unjudged, r.RunID))
	}
	if t.NotRun > 0 {
		parts = append(parts, fmt.Sprintf("%d not run: continue with -rook.run=%s", t.NotRun, r.RunID))
	}
	if t.Unrunnable > 0 {
		parts = append(parts, fmt.Sprintf("%d unrunnable: the profile cannot observe what they grade", t.Unrunnable))
	}
	if len(parts) == 0 {
		switch {
		case passedN == 0 && t.Planned == 0:
			return "nothing was planned"
		case passedN == 0:
			return fmt.Sprintf("%d planned, and none passed or failed", t.Planned)
		}
		return fmt.Sprintf("all %d passed", passedN)
	}
	return strings.Join(parts, "; ")
}

// tally counts the report's rows by status as they are read, for the headline.
type tally struct {
	passed, failed, unjudged int
	untrusted                []string
}

func (t *tally) add(s Scenario) {
	switch s.Status {
	case failed:
		t.failed++
	case passed:
		t.passed++
	case "untrusted":
		t.untrusted = append(t.untrusted, s.ID)
	case "not judged":
		t.unjudged++
	}
	if s.Status != "untrusted" && strings.Contains(s.Never, "an untrusted record") {
		t.untrusted = append(t.untrusted, s.ID)
	}
}

// shared says which criterion most of the failed rows share, when two or more scenarios
// failed on the same one: ": 2 share criterion C1".
func shared(failed *Rows[Failure]) string {
	by := map[string]map[string]bool{}
	for f := range failed.All() {
		if by[f.CriterionID] == nil {
			by[f.CriterionID] = map[string]bool{}
		}
		by[f.CriterionID][f.ScenarioID] = true
	}
	var best string
	for id, scs := range by {
		if len(scs) > len(by[best]) || (len(scs) == len(by[best]) && id < best) {
			best = id
		}
	}
	if best == "" || len(by[best]) < 2 {
		return ""
	}
	ids := make([]string, 0, len(by[best]))
	for sc := range by[best] {
		ids = append(ids, sc)
	}
	sort.Strings(ids)
	return fmt.Sprintf(": %d share criterion %s (%s)", len(ids), best, strings.Join(ids, ", "))
}
