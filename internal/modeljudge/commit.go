package modeljudge

import (
	"context"
	"fmt"
	"sort"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
)

// Commit-first judging (-rook.judge-mode=commit) asks each request twice. First with the
// agent's replies withheld: the judge commits, from the goal, the tool calls, their outputs
// and the collected evidence, to what those show of each criterion. Then as usual, replies
// and all. A criterion the first answered Pass and the second Fail, or the other way, was
// turned over by what the agent said, which is not proof of what it did: it is Unable to
// Verify. A criterion the first left Unable to Verify (only the replies can decide it) is
// decided by the second. A first request that answers a control wrong, or gives no usable
// answer, decides nothing, and neither does the second then.

// Modes of asking: one request, or the replies withheld first.
const (
	ModeOne    = "one"
	ModeCommit = "commit"
)

// committable says whether c's record holds anything beside the replies to commit from:
// calls, collect's data or evidence files. Without any the first request could only
// answer Unable to Verify, and is not asked.
func committable(c Case) bool {
	return len(c.Evidence.Calls().Value) > 0 || c.Evidence.Collect().Observed || len(c.Files) > 0
}

// commitFirst decides c with the replies withheld first, then with them (see above).
func (j *Judge) commitFirst(ctx context.Context, c Case) Decision {
	w := c
	w.Evidence, w.withheld = c.Evidence.WithoutReplies(), true
	first := j.decide(ctx, w)
	d := j.decide(ctx, c)
	commit := &record.JudgeCommit{Out: first.out, Usage: first.Info.Usage}
	for _, cr := range c.Criteria {
		a, b := first.Results[cr.ID], d.Results[cr.ID]
		commit.Answers = append(commit.Answers, cr.ID+" "+string(a.Status))
		switch {
		case first.out != "":
			r := unable(fmt.Sprintf("the judge decided nothing with the agent's replies withheld (%s), so its answer with them is not taken", first.out))
			r.Unanswered = a.Unanswered || b.Unanswered
			d.Results[cr.ID] = r
		case decided(a.Status) && decided(b.Status) && a.Status != b.Status:
			commit.Disagreed = append(commit.Disagreed, cr.ID)
			d.Results[cr.ID] = unable(fmt.Sprintf("with the agent's replies withheld the judge answered %s from the calls and the collected evidence (%s), and %s with them (%s): what the agent said turned its answer over, and the agent saying so is not proof",
				a.Status, check.Clip(a.Evidence, 160), b.Status, check.Clip(b.Evidence, 160)))
		}
	}
	sort.Strings(commit.Disagreed)
	if first.out != "" && d.out == "" {
		d.out = d.Results[c.Criteria[0].ID].Achieved
	}
	d.Info.Commit = commit
	d.Info.Usage = addUsages(d.Info.Usage, first.Info.Usage)
	d.Info.Controls += first.Info.Controls
	d.Info.ControlsFailed += first.Info.ControlsFailed
	return d
}

func decided(s record.Status) bool { return s == record.Pass || s == record.Fail }
