package modeljudge

import (
	"context"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// The audit (-rook.judge-audit=P) asks a share of the requests again on the record with
// the agent's evidence removed: the user's turns stay, the replies, calls, collect's data
// and evidence files go. Nothing there shows a criterion met or not, so a judge that still
// answers Pass or Fail is guessing, and every row it decides in the run is marked
// judge_guessed.

// audits reports whether the request with this prompt is one of the audited share: the
// same prompt is always audited or never, so that a run answered from the cache audits
// the same requests.
func (j *Judge) audits(user string) bool {
	if j.cfg.Audit <= 0 {
		return false
	}
	h := fnv.New32a()
	h.Write([]byte(user))
	return int(h.Sum32()%100) < j.cfg.Audit
}

// ablated is c with the agent's evidence removed.
func ablated(c Case) Case {
	var turns []observe.Given
	for _, t := range c.Evidence.Turns().Value {
		turns = append(turns, observe.Given{Input: t.Input})
	}
	a := c
	a.Evidence, a.Files = observe.Said(turns...), nil
	return a
}

// audit asks c's criteria on the ablated record and says what the judge answered there: the
// criteria it gave a Pass or a Fail ("C1 Pass"), none when it answered as it should.
func (j *Judge) audit(ctx context.Context, c Case, n int) *record.JudgeAudit {
	a := ablated(c)
	p := planFor(a, j.cfg.Redact, j.cfg.Budget)
	asked := a
	asked.Criteria = p.asked
	user, _ := prompt(asked, j.cfg.Budget)
	user = j.cfg.Redact(user)
	var d Decision
	d.Info.PromptSHA256 = hash(system, user)
	out := &record.JudgeAudit{}
	guesses := map[string]bool{}
	for _, s := range j.samples(ctx, user, n, &d) {
		if s.err != nil {
			out.Unanswered = s.err.Error()
			continue
		}
		ans, err := parse(s.content)
		if err != nil {
			out.Unanswered = err.Error()
			continue
		}
		for _, row := range ans.Criteria {
			id, real := p.real[row.CriterionID]
			if real && decided(record.Status(row.Status)) {
				guesses[id+" "+row.Status] = true
			}
		}
	}
	for g := range guesses {
		out.Guessed = append(out.Guessed, g)
	}
	sort.Strings(out.Guessed)
	out.Usage, out.Cached = d.Info.Usage, d.Info.Cached
	if len(out.Guessed) > 0 {
		j.caught(fmt.Sprintf("%s: it answered %s with the agent's evidence removed", c.ScenarioID, strings.Join(out.Guessed, ", ")))
	}
	return out
}

// caught remembers the first audit the judge failed.
func (j *Judge) caught(why string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.guessed == "" {
		j.guessed = why
	}
}

// Guessed says how the judge was caught guessing in this run, or "" when no audit caught
// it: then every row it decides in the run is marked judge_guessed.
func (j *Judge) Guessed() string {
	if len(j.members) > 0 {
		return j.panelGuessed()
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.guessed
}
