package lifecycle_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/ratelimit"
	"github.com/rookgo/rookgo/internal/record"
)

// A criterion about one turn reads that turn alone: turn 1 and turn 2 of the same
// conversation reply and call differently, and each criterion decides on its own turn.
func TestCriteriaAboutOneTurn(t *testing.T) {
	f := newRun(t, map[string]string{
		"FAKEHOOK_EXECUTE_TURN1": `json:{"output": "let me look that up", "conversation": "c1", "calls": [{"name": "lookup_order"}], "usage": {"input": 10, "output": 5}}`,
		"FAKEHOOK_EXECUTE_TURN2": `json:{"output": "refund issued", "conversation": "c1", "calls": [{"name": "issue_refund"}], "usage": {"input": 30, "output": 20}}`,
	}, "hooks:\n  execute: {command: [BIN]}\n")
	sc := parseScenario(t, `goal: refund it
setup_messages: [where is my order]
acceptance_criteria:
  - {id: T1-LOOKS, statement: s, check: called, params: {name: lookup_order}, turn: 1}
  - {id: T1-NO-REFUND, statement: s, check: not_called, params: {name: issue_refund}, turn: 1}
  - {id: T2-REFUNDS, statement: s, check: called, params: {name: issue_refund}, turn: 2}
  - {id: T2-NO-LOOKUP, statement: s, check: not_called, params: {name: lookup_order}, turn: 2}
  - {id: LAST-SAYS, statement: s, check: contains, params: {text: refund issued}, turn: last}
  - {id: T1-SAYS-REFUND, statement: s, check: contains, params: {text: refund}, turn: 1}
  - {id: T1-USAGE, statement: s, check: usage, params: {total_max: 20}, turn: 1}
  - {id: ALL-USAGE, statement: s, check: usage, params: {total_max: 20}, turns: all}
  - {id: ALL-CALLS, statement: s, check: not_called, params: {name: issue_refund}}
`)
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.NotNil(t, o.Verdict, "%v", o.Attempts[0].Failures)
	got := map[string]record.Status{}
	turn := map[string]string{}
	for _, r := range o.Verdict.Criteria {
		got[r.CriterionID], turn[r.CriterionID] = r.Status, r.Turn
	}
	assert.Equal(t, map[string]record.Status{
		"T1-LOOKS": record.Pass, "T1-NO-REFUND": record.Pass, "T2-REFUNDS": record.Pass, "T2-NO-LOOKUP": record.Pass,
		"LAST-SAYS": record.Pass, "T1-SAYS-REFUND": record.Fail, "T1-USAGE": record.Pass,
		"ALL-USAGE": record.Fail, "ALL-CALLS": record.Fail,
	}, got)
	assert.Equal(t, "last (2)", turn["LAST-SAYS"])
	assert.Equal(t, "1", turn["T1-LOOKS"])
	assert.Empty(t, turn["ALL-CALLS"])
}

// A turn that never replied leaves its criteria Unable to Verify; calls only collect
// reported cannot be put in a turn.
func TestATurnThatNeverRepliedOrWhoseCallsAreTheSessions(t *testing.T) {
	f := newRun(t, map[string]string{
		"FAKEHOOK_EXECUTE_TURN1": `json:{"output": "one moment", "conversation": "c1"}`,
		"FAKEHOOK_EXECUTE_TURN2": "exit:3:upstream 503",
		"FAKEHOOK_COLLECT":       `json:{"calls": [{"name": "lookup_order"}]}`,
	}, "hooks:\n  execute: {command: [BIN]}\n  collect: {command: [BIN]}\n")
	sc := parseScenario(t, `goal: refund it
setup_messages: [where is my order]
acceptance_criteria:
  - {id: T2, statement: s, check: contains, params: {text: refund}, turn: 2}
  - {id: T1-CALLS, statement: s, check: called, params: {name: lookup_order}, turn: 1}
  - {id: SESSION-CALLS, statement: s, check: called, params: {name: lookup_order}}
`)
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.NotNil(t, o.Verdict)
	rows := map[string]record.Row{}
	for _, r := range o.Verdict.Criteria {
		rows[r.CriterionID] = r
	}
	assert.Equal(t, record.UnableToVerify, rows["T2"].Status)
	assert.Equal(t, record.AgentNeverRan, rows["T2"].Reason)
	assert.Equal(t, "turn 2 never replied (1 turn(s) did), so there is nothing of it to judge", rows["T2"].Achieved)
	assert.Equal(t, record.UnableToVerify, rows["T1-CALLS"].Status)
	assert.Contains(t, rows["T1-CALLS"].Achieved, `turn 1 reported no "calls"; collect's calls are the whole session's and cannot be put in a turn`)
	assert.Equal(t, record.Pass, rows["SESSION-CALLS"].Status, "the session's calls decide a criterion about every turn")
}

// A turn held longer than a second by the rate says why, once a run, without -v (Notice):
// a run that waits on its rate with nothing said looks hung.
func TestAHeldTurnSaysWhy(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": `json:{"output": "ok", "conversation": "c1", "calls": []}`}, "hooks:\n  execute: {command: [BIN]}\n")
	var notices []string
	f.cfg.Turns = ratelimit.New(ratelimit.Rate{N: 1, Per: 1500 * time.Millisecond})
	f.cfg.Notice = func(msg string) { notices = append(notices, msg) }
	f.restart(t, nil)
	sc := parseScenario(t, "goal: three\nsetup_messages: [one, two]\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: ok}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.NotNil(t, o.Verdict)
	require.Len(t, notices, 1, "said once, though two turns were held: %v", notices)
	assert.Regexp(t, `^SC-1 execute turn 2 waited 1\.\ds to start: the rate of 1 per 1\.5s: 1 started in the last 1\.5s`, notices[0])
}
