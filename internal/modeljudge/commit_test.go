package modeljudge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakejudge"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/record"
)

// A judge that believes what the agent says passes the reply that claims a refund its own
// tool denied; asked first with the replies withheld, it committed to the tool's Fail, the
// replies turned it over, and the row is Unable to Verify, never a Pass.
func TestCommitFirstCatchesAJudgeSwayedByTheReply(t *testing.T) {
	it := kitItem(t, "KIT-CONTRADICTION-1")
	scripts := map[string]string{it.Case.ScenarioID: fakejudge.ReplySwayed}

	one, _ := newJudge(t, scripts, nil)
	d := one.Decide(context.Background(), it.Case)
	require.Equal(t, record.Pass, d.Results["C1"].Status, "one request: the swayed judge's Pass stands (%+v)", d.Results["C1"])
	assert.Nil(t, d.Info.Commit)

	commit, fake := newJudge(t, scripts, func(c *modeljudge.Config) { c.Mode = modeljudge.ModeCommit })
	d = commit.Decide(context.Background(), it.Case)
	r := d.Results["C1"]
	assert.Equal(t, record.UnableToVerify, r.Status)
	assert.Contains(t, r.Achieved, "with the agent's replies withheld the judge answered Fail")
	assert.Contains(t, r.Achieved, `denied`)
	require.NotNil(t, d.Info.Commit)
	assert.Equal(t, []string{"C1 Fail"}, d.Info.Commit.Answers)
	assert.Equal(t, []string{"C1"}, d.Info.Commit.Disagreed)
	assert.Zero(t, d.Info.ControlsFailed)
	var rep record.Report
	info := d.Info
	rep.AddJudge(&record.Verdict{Judge: &info})
	require.Len(t, rep.Judges, 1)
	assert.Equal(t, 1, rep.Judges[0].Committed, "report.yaml counts the request asked first")
	assert.Equal(t, 1, rep.Judges[0].TurnedOver, "and the criterion the replies turned over")
	reqs := fake.Requests(it.Case.ScenarioID)
	require.Len(t, reqs, 2, "the replies withheld, then the whole record")
	assert.NotContains(t, reqs[0].Prompt, "has been issued", "the first request holds no reply")
	assert.Contains(t, reqs[0].Prompt, "its replies are withheld from this request")
	assert.Contains(t, reqs[1].Prompt, "has been issued")
}

// A record of replies alone gives the first request nothing to commit from: it is not
// asked, and the one request decides as it would.
func TestCommitFirstAsksOnceWhereOnlyRepliesAre(t *testing.T) {
	it := kitItem(t, "KIT-CUT-NUMBER-1")
	j, fake := newJudge(t, map[string]string{it.Case.ScenarioID: fakejudge.GroundedFail}, func(c *modeljudge.Config) { c.Mode = modeljudge.ModeCommit })
	d := j.Decide(context.Background(), it.Case)
	assert.Equal(t, record.Fail, d.Results["C1"].Status)
	assert.Nil(t, d.Info.Commit)
	assert.Len(t, fake.Requests(it.Case.ScenarioID), 1)
}

// A first request whose control is answered wrong decides nothing, and neither does the
// second: the rows are Unable to Verify.
func TestCommitFirstThatFailsAControlDecidesNothing(t *testing.T) {
	it := kitItem(t, "KIT-PASS-1")
	j, _ := newJudge(t, map[string]string{it.Case.ScenarioID: fakejudge.PassAll}, func(c *modeljudge.Config) { c.Mode = modeljudge.ModeCommit })
	d := j.Decide(context.Background(), it.Case)
	require.NotNil(t, d.Info.Commit)
	assert.NotEmpty(t, d.Info.Commit.Out)
	for id, r := range d.Results {
		assert.Equal(t, record.UnableToVerify, r.Status, id)
	}
}

// The kit with every careless script, one request against commit-first side by side: the
// false Passes each lets through and the requests it costs (docs/judge.md quotes the table).
func TestCommitFirstOnTheKitsCarelessScripts(t *testing.T) {
	scripts := []string{fakejudge.GroundedPass, fakejudge.PassAll, fakejudge.ShapeOnly, fakejudge.Guesser, fakejudge.CutNumber,
		fakejudge.DropNegation, fakejudge.NegationBlind, fakejudge.WrongControl, fakejudge.ReplySwayed}
	kit := modeljudge.Kit()
	var lines []string
	falsePasses := map[string][2]int{}
	for _, script := range scripts {
		all := map[string]string{}
		for _, it := range kit {
			all[it.Case.ScenarioID] = script
		}
		var got [2]int
		var asked [2]int
		var truePasses [2]int
		for m, mode := range []string{modeljudge.ModeOne, modeljudge.ModeCommit} {
			j, fake := newJudge(t, all, func(c *modeljudge.Config) { c.Mode = mode; c.Preflight = false })
			for _, it := range kit {
				d := j.Decide(context.Background(), it.Case)
				asked[m] += len(fake.Requests(it.Case.ScenarioID))
				for id, want := range it.Want {
					if d.Results[id].Status == record.Pass {
						if want == record.Pass {
							truePasses[m]++
						} else {
							got[m]++
						}
					}
				}
			}
		}
		falsePasses[script] = got
		lines = append(lines, fmt.Sprintf("%-15s false passes %d -> %d, true passes %d -> %d, requests %d -> %d", script, got[0], got[1], truePasses[0], truePasses[1], asked[0], asked[1]))
		assert.LessOrEqual(t, got[1], got[0], "%s: commit-first lets through no more false passes", script)
	}
	t.Log("the kit's careless scripts, one request -> commit-first:\n" + strings.Join(lines, "\n"))
	assert.Less(t, falsePasses[fakejudge.ReplySwayed][1], falsePasses[fakejudge.ReplySwayed][0], "commit-first catches a judge swayed by the replies")
}

// kitItem is the kit's request id.
func kitItem(t *testing.T, id string) modeljudge.KitItem {
	t.Helper()
	for _, it := range modeljudge.Kit() {
		if it.Case.ScenarioID == id {
			return it
		}
	}
	t.Fatalf("the kit has no request %s", id)
	return modeljudge.KitItem{}
}
