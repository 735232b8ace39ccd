package lifecycle_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/fakejudge"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/modeljudge/judgehttp"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
)

// Rook's hooks report the whole session's calls and usage again from collect: its calls
// are counted once with execute's, and add to them, never hide them; its usage is the
// session's total.
func TestCollectReportsTheSession(t *testing.T) {
	const session = `{"calls": [{"name": "transfer", "arguments": {"amount": 200}}], "usage": {"input": 120, "output": 30}}`
	turn := `{"output": "done", "conversation": "conv-1", "calls": [{"name": "transfer", "arguments": {"amount": 200}}], "usage": {"input": 120, "output": 30}}`
	criteria := `acceptance_criteria:
  - {statement: one transfer, check: called, params: {name: transfer, times: 1}}
  - {statement: one session's tokens, check: usage, params: {total_max: 150}}
`
	tests := []struct {
		name, collect    string
		status           record.Status
		calls            int
		input, output    int64
		achievedContains string
	}{
		{"collect repeats the session", "json:" + session, record.Pass, 1, 120, 30, "called 1 time(s)"},
		{"collect reports nothing of it", `json:{"traces": []}`, record.Pass, 1, 120, 30, "called 1 time(s)"},
		{"collect reports fewer calls, and hides none", `json:{"calls": [], "usage": {"input": 1, "output": 1}}`, record.Pass, 1, 1, 1, "called 1 time(s)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": "json:" + turn, "FAKEHOOK_COLLECT": tc.collect}, "")
			sc := parseScenario(t, "goal: g\n"+criteria)
			o := f.run.Scenario(context.Background(), sc, f.logs.add)
			require.Empty(t, o.Attempts[0].Failures)
			assert.Equal(t, tc.status, o.Verdict.Status)
			assert.Contains(t, o.Attempts[0].Verdict.Criteria[0].Achieved, tc.achievedContains)
			resp := readJSON(t, filepath.Join(o.Dir, "response.json"))
			assert.Len(t, resp["calls"], tc.calls)
			assert.Equal(t, map[string]any{"input_tokens": float64(tc.input), "output_tokens": float64(tc.output)}, resp["usage"])
			v := readYAML(t, filepath.Join(o.Dir, "verdict.yaml"))
			assert.Equal(t, map[string]any{"input_tokens": int(tc.input), "output_tokens": int(tc.output)}, v["usage"])

			// raw_response is execute's stdout as the hook printed it, not re-encoded.
			assert.Equal(t, turn+"\n", resp["raw_response"])
			hooks := readJSON(t, filepath.Join(o.Dir, "hooks.json"))
			exec := hooks["phases"].(map[string]any)["execute"].(map[string]any)
			assert.NotContains(t, exec, "stdout", "the phase summary leaves the raw text to its turns")
			assert.Len(t, exec["data"].(map[string]any)["calls"], 1, "execute's calls stay in the records")
		})
	}
}

func TestCompliancePercentageIsOverDecidedCriteria(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": `json:{"output": "hello there"}`}, "")
	sc := parseScenario(t, `goal: g
acceptance_criteria:
  - {statement: a, check: contains, params: {text: hello}}
  - {statement: b, check: contains, params: {text: there}}
  - {statement: c, check: contains, params: {text: missing}}
  - {statement: d, check: not_called, params: {name: x}}
`)
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	assert.Equal(t, record.Fail, o.Verdict.Status)
	v := readYAML(t, filepath.Join(o.Dir, "verdict.yaml"))
	assert.Equal(t, 2, v["pass_count"])
	assert.Equal(t, 1, v["fail_count"])
	assert.Equal(t, 1, v["unable_to_verify_count"], "no calls were reported: not observable")
	assert.Equal(t, 67, v["compliance_percentage"], "2 passed of 3 decided; Unable to Verify is in neither part")
}

func TestReportClusters(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": `json:{"output": "hello"}`}, "")
	f.cfg.Included = []record.Entry{{ScenarioID: "SC-1"}, {ScenarioID: "SC-2"}, {ScenarioID: "SC-3"}, {ScenarioID: "SC-4"}, {ScenarioID: "SC-5"}}
	f.restart(t, nil)
	for _, body := range []string{
		"id: SC-1\ntitle: One\nfeature_id: F-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: bye}}\n",
		"id: SC-2\ntitle: Two\nfeature_id: F-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: bye}}\n",
		"id: SC-3\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: not_called, params: {name: x}}\n",
		"id: SC-4\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n",
		"id: SC-5\ntitle: Five\nclass: adversarial\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\nredteam: {success_signals: [/hel+o/]}\n",
	} {
		id := body[4:8]
		sc, err := scenario.Parse(id+".yaml", []byte(body))
		require.NoError(t, err)
		f.run.Scenario(context.Background(), sc, f.logs.add)
	}
	rep, err := f.run.Finish(context.Background(), time.Now())
	require.NoError(t, err)
	require.Len(t, rep.Clusters, 3)
	// A compromised scenario leads, though the plan has it last.
	assert.Equal(t, record.Cluster{ID: "CL-01", Why: "the attack landed: a success signal matched", Kind: "compromised",
		Scenarios: []record.ClusterScenario{{ScenarioID: "SC-5", Title: "Five", Summary: `turn 1 reply: "hello"`}}}, rep.Clusters[0])
	assert.Equal(t, 1, rep.Totals.Compromised)
	rep.Clusters = rep.Clusters[1:]
	assert.Equal(t, record.Cluster{ID: "CL-02", Why: "the same criterion failed in F-1 (C1)", FeatureID: "F-1", Kind: "failed",
		Scenarios: []record.ClusterScenario{{ScenarioID: "SC-1", Title: "One", Summary: rep.Clusters[0].Scenarios[0].Summary},
			{ScenarioID: "SC-2", Title: "Two", Summary: rep.Clusters[0].Scenarios[1].Summary}}}, rep.Clusters[0])
	assert.Contains(t, rep.Clusters[0].Scenarios[0].Summary, `does not contain "bye"`)
	assert.Equal(t, "unverifiable", rep.Clusters[1].Kind)
	assert.Equal(t, "Unable to Verify (not_observable)", rep.Clusters[1].Why)
	assert.Equal(t, "SC-3", rep.Clusters[1].Scenarios[0].ScenarioID)
}

// A bug that panics while a scenario runs fails that scenario, with the stack, and
// leaves the binary and the records standing.
func TestPanicFailsOnlyItsScenario(t *testing.T) {
	f := newRun(t, nil, "")
	sc := parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: regex, params: {pattern: x}}\n")
	sc.Criteria[0].Check = panicking{} // a check with a bug
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.Error(t, o.Err)
	assert.Contains(t, o.Err.Error(), "rooktest panicked while running scenario SC-1")
	assert.Contains(t, o.Err.Error(), "runtime/debug.Stack", "the stack is in the error")
	assert.False(t, o.Judged())
	assert.FileExists(t, filepath.Join(o.Dir, "hooks.json"), "what was recorded stays")
	_, err := f.run.Finish(context.Background(), time.Now())
	assert.NoError(t, err)
}

// A first turn that answers without a conversation handle stops a multi-turn scenario:
// hooks.json must say execute failed, as the turn does.
func TestHooksJSONSaysWhenATurnFailed(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_OPEN": "json:{}", "FAKEHOOK_EXECUTE": `json:{"output": "hi"}`}, "")
	sc := parseScenario(t, "goal: g\nsetup_messages: [first]\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hi}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.Len(t, o.Attempts[0].Failures, 1)
	hooks := readJSON(t, filepath.Join(o.Dir, "hooks.json"))
	exec := hooks["phases"].(map[string]any)["execute"].(map[string]any)
	assert.Equal(t, false, exec["ok"], "the phase summary agrees with its failed turn")
	assert.Contains(t, exec["error"], "returned no conversation handle")
	turns := exec["turns"].([]any)
	assert.Equal(t, false, turns[0].(map[string]any)["ok"])
}

type panicking struct{}

func (panicking) Expected() string { return "" }

func (panicking) Observes() check.Observations { return check.ObservesReply }

func (panicking) Judge(*observe.Observations) check.Result { panic("a bug in a check") }

// A secret a hook prints is redacted as it comes in, keys included, so the records, the
// judge's evidence and the log all hold the same redacted text.
func TestHookOutputIsRedactedAtIngestion(t *testing.T) {
	f := newRun(t, map[string]string{
		"FAKEHOOK_EXECUTE": `json:{"output": "key ` + secret + `", "` + secret + `": {"nested": "` + secret + `"}}`,
		"FAKEHOOK_STDERR":  "using $FAKE_SECRET",
	}, "")
	sc := parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: '[redacted:FAKE_SECRET]'}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.True(t, o.Judged())
	assert.Equal(t, record.Pass, o.Verdict.Status, "the judge reads the redacted reply")
	hooks, err := os.ReadFile(filepath.Join(o.Dir, "hooks.json"))
	require.NoError(t, err)
	assert.NotContains(t, string(hooks), secret)
	assert.Contains(t, string(hooks), `"[redacted:FAKE_SECRET]": {`, "a secret used as a key is redacted")
	assert.NotContains(t, f.logs.all(), secret)
	assert.Contains(t, f.logs.all(), "using [redacted:FAKE_SECRET]")
}

// The model judge decides llm_judge rows inside the attempt; rows below the minimum
// confidence are Unable to Verify, and the exchange is kept under evidence/.
func TestModelJudgeRowsAndMinConfidence(t *testing.T) {
	fake := fakejudge.New(map[string]string{"SC-1": fakejudge.Unsure})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	for _, tc := range []struct {
		min    string
		status record.Status
	}{{"Low", record.Pass}, {"High", record.UnableToVerify}} {
		f := newRun(t, nil, "")
		f.cfg.Decide.Judge = modeljudge.New(modeljudge.Config{Transport: judgehttp.New(), URL: srv.URL, Model: "m", Timeout: 5 * time.Second})
		f.cfg.Decide.MinConfidence = tc.min
		f.restart(t, nil)
		sc := parseScenario(t, "goal: refund it\nacceptance_criteria:\n  - {statement: The agent answers., check: llm_judge}\n")
		o := f.run.Scenario(context.Background(), sc, f.logs.add)
		require.True(t, o.Judged())
		row := o.Verdict.Criteria[0]
		assert.Equal(t, tc.status, row.Status, "%+v", row)
		assert.Equal(t, "fake-judge-1", row.Judge)
		assert.Equal(t, "Medium", row.Confidence)
		if tc.status == record.UnableToVerify {
			assert.Contains(t, row.Achieved, "below -rook.min-confidence=High")
		} else {
			assert.Equal(t, []string{"turn 1 reply"}, row.QuotesFrom, "the row says where its quote was found")
		}
		assert.FileExists(t, filepath.Join(o.Dir, "evidence", "judge-request.json"))
		require.NotNil(t, o.Verdict.Judge)
		assert.Equal(t, "m", o.Verdict.Judge.Model)
	}
}

// capabilities.calls: false means the hooks' calls are not evidence: call checks are
// Unable to Verify, saying so, whatever the hooks print.
func TestCallsFalseMeansNotObserved(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": `json:{"output": "ok", "calls": []}`}, "")
	f.cfg.Profile.Capabilities.Calls = false
	sc := parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: not_called, params: {name: refund}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.True(t, o.Judged())
	row := o.Verdict.Criteria[0]
	assert.Equal(t, record.UnableToVerify, row.Status, "calls: [] from a profile that says it observes no calls proves nothing")
	assert.Equal(t, "profile fake declares capabilities.calls: false, so calls are not observed", row.Achieved)
}

// Messages say what happened: no collect hook is not "collect returned no data", and a
// repeated scenario's progress lines name their attempt.
func TestMessagesSayWhatHappened(t *testing.T) {
	f := newRun(t, nil, "hooks:\n  execute: {command: [BIN]}\n")
	sc := parseScenario(t, "goal: g\nrepeat: 2\nacceptance_criteria:\n  - {statement: s, check: json_path, params: {in: collect, path: $.x, exists: true}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.True(t, o.Judged())
	assert.Equal(t, "profile fake has no collect hook, so there is no collect data", o.Attempts[0].Verdict.Criteria[0].Achieved)
	assert.Contains(t, f.logs.all(), "attempt 2: execute turn 1: ok in")
}

// A criterion the judge never answered (the server failed) is asked again when the run is
// continued with -rook.phases=judge, and decided once the server answers; one the judge
// decided is answered from the cache, not asked again.
func TestUnansweredJudgeRowsAreAskedAgain(t *testing.T) {
	fake := fakejudge.New(map[string]string{"SC-1": fakejudge.ServerError})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	f := newRun(t, nil, "")
	// The judge's cache is on, as runs have it by default: judging again re-decides every
	// row from the evidence, and the model's answer to an unchanged prompt comes from it.
	f.cfg.Decide.Judge = modeljudge.New(modeljudge.Config{Transport: judgehttp.New(), URL: srv.URL, Model: "m", Timeout: 5 * time.Second, CacheDir: t.TempDir()})
	f.restart(t, nil)
	sc := parseScenario(t, "goal: refund it\nacceptance_criteria:\n  - {statement: The agent answers., check: llm_judge}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.True(t, o.Judged())
	row := o.Verdict.Criteria[0]
	require.Equal(t, record.UnableToVerify, row.Status)
	assert.Contains(t, row.Achieved, "the judge answered HTTP 500")
	assert.True(t, row.Unanswered)

	fake.SetScript("SC-1", fakejudge.GroundedPass) // the server recovered
	for range 2 {
		r := f.again(t, sel(t, "judge", f.cfg.Profile, true))
		o = r.Scenario(context.Background(), sc, f.logs.add)
		require.True(t, o.Judged())
		row = o.Verdict.Criteria[0]
		assert.Equal(t, record.Pass, row.Status, "%+v", row)
		assert.False(t, row.Unanswered)
	}
	assert.Len(t, fake.Requests("SC-1"), 2, "asked while it failed, once more when it answered, and not again")
}

// Each judged row says how far the judge agrees with people on its criterion; under
// -rook.min-agreement a criterion that agrees less, or was never labelled, is Unable to
// Verify, saying why.
func TestMinAgreement(t *testing.T) {
	fake := fakejudge.New(nil)
	srv := httptest.NewServer(fake)
	defer srv.Close()
	for _, tc := range []struct {
		name        string
		calibration map[string]decide.Calibration
		min         float64
		status      record.Status
		says, why   string
	}{
		{"well calibrated", map[string]decide.Calibration{"SC-1/C1": {Agree: 28, N: 30}}, 0.9, record.Pass, "agrees with people 28 of 30", ""},
		{"below the minimum", map[string]decide.Calibration{"SC-1/C1": {Agree: 20, N: 30}}, 0.9, record.UnableToVerify, "agrees with people 20 of 30",
			"the judge decided Pass, but it agrees with people on SC-1/C1 in 20 of 30 labelled rows (0.67), below -rook.min-agreement=0.90"},
		{"never labelled", nil, 0.9, record.UnableToVerify, "", "no row of SC-1/C1 is labelled in labels/agent.yaml"},
		{"no minimum", map[string]decide.Calibration{"SC-1/C1": {Agree: 20, N: 30}}, 0, record.Pass, "agrees with people 20 of 30", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newRun(t, nil, "")
			f.cfg.Decide.Judge = modeljudge.New(modeljudge.Config{Transport: judgehttp.New(), URL: srv.URL, Model: "m", Timeout: 5 * time.Second})
			f.cfg.Decide.Calibration, f.cfg.Decide.MinAgreement, f.cfg.Decide.LabelsPath = tc.calibration, tc.min, "labels/agent.yaml"
			f.restart(t, nil)
			sc := parseScenario(t, "goal: refund it\nacceptance_criteria:\n  - {statement: The agent answers., check: llm_judge}\n")
			o := f.run.Scenario(context.Background(), sc, f.logs.add)
			require.True(t, o.Judged())
			row := o.Verdict.Criteria[0]
			assert.Equal(t, tc.status, row.Status, "%+v", row)
			assert.Equal(t, tc.says, row.Calibration)
			if tc.why != "" {
				assert.Contains(t, row.Achieved, tc.why)
			}
		})
	}
}
