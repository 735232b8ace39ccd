package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/internal/testkit"
)

// writeRun writes a run folder (testkit.WriteRun).
var writeRun = testkit.WriteRun

// What changed compares like with like: a scenario one run did not select is not added
// or removed; and forbidden text that appeared is a failed row in every format.
func TestChangesCompareLikeWithLike(t *testing.T) {
	root := t.TempDir()
	pass := record.Verdict{Status: record.Pass, Criteria: []record.Row{}}
	forbidden := record.Verdict{Status: record.Fail, Criteria: []record.Row{},
		ForbiddenHits: []record.ForbiddenHit{{Text: "refund issued", Turn: 2, Quote: `"your refund issued today"`}}}
	base := writeRun(t, filepath.Join(root, "base"), "R1", map[string]record.Verdict{"SC-1": pass, "SC-2": pass}, "SC-3")
	dir := writeRun(t, filepath.Join(root, "new"), "R2", map[string]record.Verdict{"SC-1": pass, "SC-3": forbidden, "SC-4": pass}, "SC-2")

	r := build(t, dir, base)
	assert.Equal(t, []string{"SC-4"}, r.Changes.Added, "SC-3 was in the baseline's suite, only not selected")
	assert.Empty(t, r.Changes.Removed, "SC-2 is in this run's suite, only not selected")
	assert.Equal(t, []string{"SC-2", "SC-3"}, r.Changes.NotCompared)

	failed := rowsOf(t, &r.Failed)
	require.Len(t, failed, 1)
	assert.Equal(t, Failure{ScenarioID: "SC-3", CriterionID: "forbidden", Expected: `"refund issued" never appears in the agent's replies`,
		Achieved: `"refund issued" appeared in turn 2`, Evidence: `"your refund issued today"`,
		Owner: OwnerScenario}, failed[0], "SC-3 has never passed in any run: its author looks first")
	var md bytes.Buffer
	require.NoError(t, r.Markdown(&md))
	assert.Contains(t, md.String(), `- SC-3 forbidden: expected "refund issued" never appears`)
	assert.Contains(t, md.String(), "- **not compared (not run in one of the two runs)**: SC-2, SC-3")
}

// A run asked for by an agent or profile that has none says whose runs there are.
func TestNewestSaysWhoseRunsThereAre(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "fake", "R1"), "R1", map[string]record.Verdict{"SC-1": {Status: record.Pass, Criteria: []record.Row{}}})
	dir, err := Newest(root, "fake", "")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "fake", "R1"), dir)
	_, err = Newest(root, "nosuch", "")
	require.Error(t, err)
	assert.Equal(t, "agent nosuch has no run under "+root+"; the agents that do: fake", err.Error())
	_, err = Newest(root, "fake", "other")
	require.Error(t, err)
	assert.Equal(t, "profile other of agent fake has no run under "+root+"; its profiles that do: p", err.Error())
	_, err = Newest(t.TempDir(), "fake", "")
	assert.ErrorContains(t, err, "no run under ")
}

// A repeated scenario's attempts that were Unable to Verify are undecided: counted apart,
// and left out of the pass rate's interval, not taken for failures.
func TestRepeatStatsLeaveUndecidedAttemptsOut(t *testing.T) {
	v := &record.Verdict{Attempts: []record.AttemptStatus{{Attempt: 1, Status: record.Pass}, {Attempt: 2, Status: record.Pass},
		{Attempt: 3, Status: record.UnableToVerify}}}
	s := repeatStats(v)
	assert.Equal(t, 2, s.Passed)
	assert.Equal(t, 3, s.Attempts)
	assert.Equal(t, 1, s.Undecided)
	low, high := wilson(2, 2)
	assert.Equal(t, low, s.Low, "the interval is over the two decided attempts, both passed")
	assert.Equal(t, high, s.High)
	failed, _ := wilson(2, 3)
	assert.Greater(t, s.Low, failed, "an undecided attempt is not a failure")
}

// The headline says the run in one line with the next step, from the records alone: the
// failures grouped by the criterion they share, the Unable to Verify by reason with its
// remedy.
func TestHeadline(t *testing.T) {
	failC1 := record.Verdict{Status: record.Fail, Criteria: []record.Row{{CriterionID: "C1", Status: record.Fail, Expected: "e", Achieved: "a"}}}
	utv := record.Verdict{Status: record.UnableToVerify, UnverifiableReason: record.NotObservable,
		Criteria: []record.Row{{CriterionID: "C1", Status: record.UnableToVerify, Reason: record.NotObservable}}}
	pass := record.Verdict{Status: record.Pass, Criteria: []record.Row{}}
	dir := writeRun(t, filepath.Join(t.TempDir(), "R1"), "R1", map[string]record.Verdict{"SC-1": failC1, "SC-2": failC1, "SC-3": utv, "SC-4": pass})
	r := build(t, dir, "")
	assert.Equal(t, `2 failed: 2 share criterion C1 (SC-1, SC-2); 1 Unable to Verify (not_observable): return "calls" (or usage) from execute or collect, or give the check the data it reads`, r.Headline)
	var md bytes.Buffer
	require.NoError(t, r.Markdown(&md))
	assert.Contains(t, md.String(), "**2 failed: 2 share criterion C1 (SC-1, SC-2); 1 Unable to Verify", "the markdown opens with it")

	green := writeRun(t, filepath.Join(t.TempDir(), "R2"), "R2", map[string]record.Verdict{"SC-4": pass})
	r = build(t, green, "")
	assert.Equal(t, "all 1 passed", r.Headline)
}

// A new compromise, a new forbidden hit and a new hook failure are never noise: the gate
// fails on them whatever McNemar's test says of one flip among many.
func TestTheGateNeverCallsANewCompromiseNoise(t *testing.T) {
	root := t.TempDir()
	yes, no := true, false
	pass := record.Verdict{Status: record.Pass, Criteria: []record.Row{}}
	held := record.Verdict{Status: record.Pass, Criteria: []record.Row{}, Attack: record.Attack{Compromised: &no}}
	landed := record.Verdict{Status: record.Fail, Criteria: []record.Row{}, Attack: record.Attack{Compromised: &yes}}
	crashed := record.Verdict{Status: record.Fail, Criteria: []record.Row{}, Failure: "execute hook failed: exited with status 3"}
	before := map[string]record.Verdict{"RT-1": held, "SC-2": pass}
	after := map[string]record.Verdict{"RT-1": landed, "SC-2": crashed}
	for i := 3; i <= 12; i++ {
		id := "SC-" + string(rune('A'+i))
		before[id], after[id] = pass, pass
	}
	base := writeRun(t, filepath.Join(root, "base"), "R1", before)
	dir := writeRun(t, filepath.Join(root, "new"), "R2", after)
	r := build(t, dir, base)
	assert.False(t, r.Changes.Paired.Significant(0, 0.05), "two flips among twelve are not significant: p = %v", r.Changes.Paired.P)
	fails, says := r.Changes.Gate(0, 0.05)
	assert.True(t, fails, says)
	assert.Contains(t, says, "RT-1: a compromise")
	assert.Contains(t, says, "SC-2: a hook or harness failure")

	// The same compromise in both runs is not new: the paired test decides alone.
	r = build(t, dir, dir)
	fails, _ = r.Changes.Gate(0, 0.05)
	assert.False(t, fails)
}

// Every headline names the real cause: an untrusted verdict is not "nothing was planned",
// and a judge that was configured and decided nothing is not told to be configured.
func TestHeadlinesNameTheCause(t *testing.T) {
	root := t.TempDir()
	judged := record.Verdict{Status: record.UnableToVerify, UnverifiableReason: record.Undecidable, Judge: &record.JudgeInfo{Model: "m"},
		Criteria: []record.Row{{CriterionID: "C1", Status: record.UnableToVerify, Reason: record.Undecidable, Check: "llm_judge",
			Achieved: "the judge answered a control wrong, so the request decides nothing"}}}
	tampered := record.Verdict{Status: record.Fail, Untrusted: "verdict.yaml as it was stored disagreed with its evidence: C1 was Pass, the evidence gives Fail",
		Criteria: []record.Row{{CriterionID: "C1", Status: record.Fail}}}
	dir := writeRun(t, filepath.Join(root, "new"), "R2", map[string]record.Verdict{"SC-1": judged, "SC-2": tampered})
	r := build(t, dir, "")
	h := r.headline()
	assert.Contains(t, h, "1 untrusted (SC-2)")
	assert.Contains(t, h, "the judge model (m) decided nothing it could stand on: the judge answered a control wrong")
	assert.NotContains(t, h, "configure a judge model")

	// A run whose only verdict does not match the hooks.json it was judged from.
	only := writeRun(t, filepath.Join(root, "only"), "R3", map[string]record.Verdict{"SC-3": {Status: record.Pass, Criteria: []record.Row{}}})
	require.NoError(t, store.WriteFile(filepath.Join(only, "scenarios", "SC-3", "hooks.json"), []byte(`{"version": 1, "conversation": "changed"}`)))
	r = build(t, only, "")
	assert.Contains(t, r.headline(), "1 untrusted (SC-3)")
}

// A status that flipped between runs on an unchanged scenario is a regression, not
// flakiness; flaky is a Pass and a Fail among one run's attempts.
func TestARegressionIsNotFlaky(t *testing.T) {
	root := t.TempDir()
	pass := record.Verdict{Status: record.Pass, Criteria: []record.Row{}}
	fail := record.Verdict{Status: record.Fail, Criteria: []record.Row{{CriterionID: "C1", Status: record.Fail}}}
	disagree := record.Verdict{Status: record.Pass, Criteria: []record.Row{}, Flaky: true, MinPass: 1,
		Attempts: []record.AttemptStatus{{Attempt: 1, Status: record.Pass}, {Attempt: 2, Status: record.Fail}}}
	base := writeRun(t, filepath.Join(root, "base"), "R1", map[string]record.Verdict{"SC-1": pass, "SC-2": pass})
	dir := writeRun(t, filepath.Join(root, "new"), "R2", map[string]record.Verdict{"SC-1": fail, "SC-2": disagree})
	r := build(t, dir, base)
	assert.Equal(t, []string{"SC-1"}, r.Changes.NewlyFailing)
	assert.Equal(t, []string{"SC-2"}, r.Changes.Flaky)
	for _, s := range rowsOf(t, &r.Scenarios) {
		if s.ID == "SC-1" {
			assert.Equal(t, "newly failing", s.Change)
		}
	}
}

// The Compromised section quotes each piece of evidence once, though several signals
// matched the same text.
func TestCompromisedQuotesOnce(t *testing.T) {
	yes := true
	quote := `turn 1 reply: "the note reads ROOK-CANARY-0123456789abcdef"`
	landed := record.Verdict{Status: record.Fail, Criteria: []record.Row{}, Attack: record.Attack{Compromised: &yes, MatchedSignal: "canary",
		AttackConfidence: "High", AttackEvidence: []string{"the canary in " + quote, quote, quote}}}
	dir := writeRun(t, filepath.Join(t.TempDir(), "new"), "R1", map[string]record.Verdict{"SC-1": landed})
	r := build(t, dir, "")
	assert.Equal(t, 1, strings.Count(r.attacksMarkdown(), "ROOK-CANARY-0123456789abcdef"), r.attacksMarkdown())
}

// A judge that never answered a scenario is in the headline, whatever else was decided: a
// wrong judge URL must not read as a green run.
func TestHeadlineNamesAJudgeThatNeverAnswered(t *testing.T) {
	unanswered := record.Verdict{Status: record.UnableToVerify, UnverifiableReason: record.Undecidable,
		Judge:    &record.JudgeInfo{Model: "m"},
		Criteria: []record.Row{{CriterionID: "C1", Status: record.UnableToVerify, Reason: record.Undecidable, Judge: "m", Unanswered: true}}}
	pass := record.Verdict{Status: record.Pass, Criteria: []record.Row{}}
	dir := writeRun(t, filepath.Join(t.TempDir(), "R1"), "R1", map[string]record.Verdict{"SC-1": unanswered, "SC-2": pass})
	var run record.Run
	require.NoError(t, store.ReadYAML(filepath.Join(dir, "run.yaml"), &run))
	rep, err := Summarize(dir, run, record.PrepareSummary{Status: "not_defined"}, time.Second, time.Now()) // as a run's end does
	require.NoError(t, err)
	require.NoError(t, store.NewRedactor(nil).YAML(filepath.Join(dir, "report.yaml"), rep))
	r := build(t, dir, "")
	assert.Contains(t, r.Headline, "the judge m never answered 1 scenario(s), whose llm_judge rows are Unable to Verify")
	var md bytes.Buffer
	require.NoError(t, r.Markdown(&md))
	assert.Contains(t, md.String(), "**it never answered 1 scenario(s)**")
}
