package lifecycle_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakejudge"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/modeljudge/judgehttp"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// simulated is a run of the fake hooks whose simulated user is a scripted model on
// loopback (fakejudge's "user:" script for SC-1), its answers cached under the records.
func simulated(t *testing.T, script string, timeout time.Duration) (*fixture, *fakejudge.Server) {
	t.Helper()
	fake := fakejudge.New(map[string]string{"SC-1": fakejudge.UserPrefix + script})
	fake.Model = "user-model-1"
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	f := newRun(t, nil, "")
	f.cfg.User = modeljudge.New(modeljudge.Config{Transport: judgehttp.New(), URL: srv.URL + "/v1", Model: "user-model",
		Timeout: timeout, Retries: 0, CacheDir: filepath.Join(f.dir, "runs", ".judge-cache")})
	f.cfg.UserURL, f.cfg.UserModel = srv.URL+"/v1", "user-model"
	f.restart(t, nil)
	return f, fake
}

const simulatedScenario = `goal: Get order ORD-7 refunded.
setup_messages: [hello]
simulated_user: {persona: a terse customer, instructions: give ORD-7 when asked, max_turns: 3}
acceptance_criteria:
  - {statement: s, check: contains, turn: last, params: {text: "echo:"}}
`

// A simulated user that reaches its goal: the setup message first, then its messages on
// stdin as scripted turns are, ROOK_TURN counting on, until it says the goal was reached;
// hooks.json keeps each of its messages and the exchange, the verdict says how it ended,
// and the judge reads its words as the user's turns.
func TestASimulatedUserReachesItsGoal(t *testing.T) {
	f, fake := simulated(t, "send where is my refund? | send it is ORD-7 | done the agent refunded it", time.Minute)
	require.Nil(t, f.run.Prepare(context.Background(), f.logs.add))
	sc := parseScenario(t, simulatedScenario)
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.NotNil(t, o.Verdict)
	assert.Equal(t, record.Pass, o.Verdict.Status, "%+v", o.Verdict)
	assert.Equal(t, "goal reached after 3 turn(s): the agent refunded it", o.Verdict.SimulatedUser)
	require.NotNil(t, o.Verdict.Simulator)
	assert.Equal(t, record.SimulatorInfo{Model: "user-model", Answers: 3, Usage: o.Verdict.Simulator.Usage}, *o.Verdict.Simulator)
	require.NotNil(t, o.Verdict.Simulator.Usage, "the fake's answers say their tokens: they are totalled")

	var stdin []string
	for _, c := range f.calls(t) {
		if c.Phase == "execute" {
			stdin = append(stdin, c.Env["ROOK_TURN"]+"="+c.Stdin)
		}
	}
	assert.Equal(t, []string{"1=hello", "2=where is my refund?", "3=it is ORD-7"}, stdin)
	assert.Len(t, fake.Requests("SC-1"), 3, "one request a simulated message, and the one that ends it")
	assert.Contains(t, fake.Requests("SC-1")[1].Prompt, "user: where is my refund?\nagent: echo: where is my refund?", "the conversation so far")

	h, err := store.ReadHooks(o.Attempts[0].Dir)
	require.NoError(t, err)
	require.NotNil(t, h.Simulation)
	assert.Equal(t, record.GoalReached, h.Simulation.Ended)
	assert.Equal(t, "user-model", h.Simulation.Model)
	require.Len(t, h.Simulation.Turns, 3)
	assert.Equal(t, "user-model-1", h.Simulation.Turns[0].ReportedModel)
	assert.NotEmpty(t, h.Simulation.Turns[0].Request)
	assert.NotNil(t, h.Simulation.Turns[0].Usage, "the simulator's tokens are recorded")
	resp := readJSON(t, filepath.Join(o.Attempts[0].Dir, "response.json"))
	transcript, _ := resp["transcript"].([]any)
	require.Len(t, transcript, 6)
	assert.Equal(t, "it is ORD-7", transcript[4].(map[string]any)["content"], "the simulated words are the user's turns")
	assert.Equal(t, true, transcript[4].(map[string]any)["simulated"], "marked as simulated")
	assert.NotContains(t, transcript[0].(map[string]any), "simulated", "a setup message is the scenario's")

	// Judged again from the records alone: the simulator is not asked.
	before := fake.Total()
	f.again(t, lifecycle.Selection{spec.Judge: true})
	again := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.NotNil(t, again.Verdict)
	assert.Equal(t, record.Pass, again.Verdict.Status)
	assert.Equal(t, before, fake.Total(), "-rook.phases=judge never calls the simulator")

	// A new run with the cache is the same conversation, and asks the simulator nothing.
	f.restart(t, nil)
	require.Nil(t, f.run.Prepare(context.Background(), f.logs.add))
	rerun := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.NotNil(t, rerun.Verdict)
	assert.Equal(t, o.Verdict.SimulatedUser, rerun.Verdict.SimulatedUser)
	assert.Equal(t, before, fake.Total(), "every answer came from the cache")
}

// How a conversation ends short of its goal: the user gives up, or its max_turns run out,
// and the criteria decide the attempt; a simulator that answers out of its protocol, hangs
// past its timeout, or is not configured fails the attempt as a harness fault, never a Pass.
func TestASimulatedUserThatDoesNotReachItsGoal(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		status       record.Status
		ended        string
		turns        int
		failure      string
	}{
		{"gives up", "send refund ORD-7 | give_up the agent only echoes", record.Pass, "gave up after 2 turn(s): the agent only echoes", 2, ""},
		{"out of turns", "send a | send b | send c | send d", record.Pass, "out of turns after 4 turn(s): the simulated user sent 3 message(s), its max_turns", 4, ""},
		{"out of protocol", "send a | garbage", record.Fail, "simulator failed after 2 turn(s): the simulated user answered out of its protocol", 2,
			"the simulated user failed, so the conversation cannot go on: the simulated user answered out of its protocol: not one JSON object"},
		{"hangs", "hang", record.Fail, "simulator failed after 1 turn(s)", 1, "no answer within 300ms"},
		{"ends before a word", "done nothing to do", record.Fail, "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := simulated(t, tc.script, 300*time.Millisecond)
			require.Nil(t, f.run.Prepare(context.Background(), f.logs.add))
			body := simulatedScenario
			if tc.name == "ends before a word" {
				body = strings.Replace(body, "setup_messages: [hello]\n", "", 1)
				tc.failure = "it ended the conversation (goal reached: nothing to do) before sending a message"
			}
			o := f.run.Scenario(context.Background(), parseScenario(t, body), f.logs.add)
			require.NotNil(t, o.Verdict)
			assert.Equal(t, tc.status, o.Verdict.Status, "%+v", o.Verdict)
			assert.Contains(t, o.Verdict.SimulatedUser, tc.ended)
			assert.Equal(t, tc.turns, o.Verdict.Turns)
			if tc.failure != "" {
				assert.Contains(t, o.Verdict.Failure, tc.failure)
			} else {
				assert.Empty(t, o.Verdict.Failure)
			}
		})
	}

	// No model configured for it: the attempt fails, naming what to set.
	f := newRun(t, nil, "")
	require.Nil(t, f.run.Prepare(context.Background(), f.logs.add))
	o := f.run.Scenario(context.Background(), parseScenario(t, simulatedScenario), f.logs.add)
	require.NotNil(t, o.Verdict)
	assert.Equal(t, record.Fail, o.Verdict.Status)
	assert.Contains(t, o.Verdict.Failure, "set ROOK_USER_URL and ROOK_USER_MODEL")
}
