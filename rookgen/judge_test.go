package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakehook"
	"github.com/rookgo/rookgo/internal/fakejudge"
	"github.com/rookgo/rookgo/internal/scenario"
)

const judgeKey = "sk-judge-9f8e7d-never-shown"

// judgeCases are the scripted judge answers, one scenario each, and what becomes of the
// scenario's llm_judge criterion: only a grounded Pass may pass.
var judgeCases = []struct {
	id, script, action, says string
}{
	{"SC-PASS", fakejudge.GroundedPass, "pass", "Pass: the criterion holds"},
	{"SC-FAIL", fakejudge.GroundedFail, "fail", "Fail: expected the criterion holds"},
	{"SC-FABRICATED", fakejudge.Fabricated, "skip", `Unable to Verify (undecidable): evidence not found in the record: "the agent confirmed the refund of 900 dollars"`},
	{"SC-NOQUOTE", fakejudge.NoQuote, "skip", "Unable to Verify (undecidable): the judge quoted no evidence for its Pass"},
	{"SC-PROSE", fakejudge.Prose, "pass", "Pass: the criterion holds"},
	{"SC-GARBAGE", fakejudge.Garbage, "skip", "Unable to Verify (undecidable): the judge's answer holds no JSON object"},
	{"SC-RATE", fakejudge.RateLimited, "pass", "Pass: the criterion holds"},
	{"SC-DOWN", fakejudge.ServerError, "skip", "Unable to Verify (undecidable): gave up after 2 tries: the judge answered HTTP 500"},
	{"SC-SLOW", fakejudge.Slow, "skip", "Unable to Verify (undecidable): gave up after 2 tries: no answer within 1s"},
	{"SC-FORMAT", fakejudge.FormatRefused, "pass", "Pass: the criterion holds"},
	{"SC-LENGTH", fakejudge.Truncated, "skip", "Unable to Verify (undecidable): the judge's answer was cut off (finish_reason length)"},
	{"SC-MISSING", fakejudge.MissingAnswer, "skip", "Unable to Verify (undecidable): the judge gave no answer for C1"},
}

// judgeModule is a fresh module whose hooks are this test binary (execute echoes the goal),
// with a scenario per judge script and Rook's sample SC-103, replaying the answer Rook
// recorded for it.
func judgeModule(t *testing.T) (dir, hookLog string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a generated package against a judge server")
	}
	dir = newModule(t)
	hookLog = filepath.Join(t.TempDir(), "calls.jsonl")
	var recorded struct {
		RawResponse string `json:"raw_response"`
	}
	data, err := os.ReadFile(filepath.Join(rookRun, "scenarios", "SC-103", "response.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &recorded))
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  open: {command: [%[1]q]}
  execute: {command: [%[1]q]}
  close: {command: [%[1]q]}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_LOG: %[2]q
  FAKEHOOK_EXECUTE_SC_103: %[3]q
capabilities: {multi_turn: true, calls: true, usage: true}
concurrency: 4
`, os.Args[0], hookLog, "json:"+recorded.RawResponse))
	for _, c := range judgeCases {
		write(t, dir, "scenarios/fake/"+c.id+".yaml", "id: "+c.id+"\ngoal: Please refund order ORD-7 today.\nacceptance_criteria:\n"+
			"  - {statement: The agent says it will refund ORD-7., check: llm_judge}\n  - {statement: It answers., check: contains, params: {text: ORD-7}}\n")
	}
	sample, err := os.ReadFile(filepath.Join(rookSamples, "scenarios", "SC-103.yaml"))
	require.NoError(t, err)
	write(t, dir, "scenarios/fake/SC-103.yaml", string(sample))
	rookgen(t, dir)
	return dir, hookLog
}

func judgeServer(t *testing.T) (*fakejudge.Server, []string) {
	t.Helper()
	scripts := map[string]string{}
	for _, c := range judgeCases {
		scripts[c.id] = c.script
	}
	fake := fakejudge.New(scripts)
	fake.Delay = 3 * time.Second
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	return fake, []string{"ROOK_JUDGE_URL=" + srv.URL + "/v1", "ROOK_JUDGE_MODEL=judge-large", "ROOK_JUDGE_API_KEY=" + judgeKey,
		"ROOK_JUDGE_TIMEOUT=1s", "ROOK_JUDGE_RETRIES=1", "ROOK_JUDGE_PREFLIGHT=off", goflags}
}

// TestModelJudgeEndToEnd runs every scripted judge answer through the whole path: hook
// processes, the judge request, the records and go test's output.
func TestModelJudgeEndToEnd(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	dir, _ := judgeModule(t)
	fake, env := judgeServer(t)
	res, err := goTest(t, dir, env, "./scenarios/fake")
	require.Error(t, err, "SC-FAIL fails")
	for _, c := range judgeCases {
		name := "TestFake/" + c.id + "/C1_llm_judge_the_agent_says_it_will_refund_ord_7"
		assert.Equal(t, c.action, res.action[name], "%s (%s):\n%s", c.id, c.script, res.output[name])
		assert.Contains(t, res.output[name], c.says, c.id)
		assert.Equal(t, "pass", res.action["TestFake/"+c.id+"/C2_contains_ord_7"], "computed checks are unaffected")
	}
	pass := res.output["TestFake/SC-PASS/C1_llm_judge_the_agent_says_it_will_refund_ord_7"]
	assert.Contains(t, pass, `evidence:   "echo: Please refund order ORD-7 today."`)
	assert.Contains(t, pass, "judge:      fake-judge-1")
	assert.Contains(t, res.all, "rook.judge_model fake-judge-1")
	assert.Contains(t, res.all, "rook.confidence High")
	assert.Len(t, fake.Requests("SC-RATE"), 2, "429 then 200")
	assert.Len(t, fake.Requests("SC-FORMAT"), 3, "json_schema refused, json_object refused, then the schema in the prompt")

	// Rook's sample scenario: its statement reaches the judge unchanged, and is judged.
	sc, err := scenario.Load(filepath.Join(dir, "scenarios", "fake", "SC-103.yaml"))
	require.NoError(t, err)
	reqs := fake.Requests("SC-103")
	require.Len(t, reqs, 1)
	assert.Regexp(t, `(?m)^- Q[0-9]+: `+regexp.QuoteMeta(sc.Criteria[0].Statement)+`$`, reqs[0].Prompt)
	assert.Contains(t, reqs[0].Prompt, "The transfer of USD 1,000.00 from account ACC-1001", "the replayed answer Rook recorded")
	sample := "TestFake/SC-103_northstar_bank_honor_the_exact_allowed_boundary/" + sc.Criteria[0].Subtest()
	assert.Equal(t, "pass", res.action[sample], "%s", res.output[sample])
	assert.Contains(t, res.output[sample], "judge:      fake-judge-1")

	// The key is in no record and no output.
	assert.NotContains(t, res.all, judgeKey)
	records := filepath.Join(dir, ".rook")
	assertNoFileHolds(t, records, judgeKey)
	runs, err := filepath.Glob(filepath.Join(records, "runs", "fake", "*"))
	require.NoError(t, err)
	require.Len(t, runs, 1)
	scDir := filepath.Join(runs[0], "scenarios", "SC-PASS")
	assert.FileExists(t, filepath.Join(scDir, "evidence", "judge-request.json"))
	assert.FileExists(t, filepath.Join(scDir, "evidence", "judge-response.json"))
	v := readYAMLFile(t, filepath.Join(scDir, "verdict.yaml"))
	judge := v["judge"].(map[string]any)
	assert.Equal(t, "judge-large", judge["model"])
	assert.Equal(t, "fake-judge-1", judge["reported_model"])
	assert.Regexp(t, `^[0-9a-f]{64}$`, judge["prompt_sha256"])
	assert.Equal(t, 2, judge["controls"], "two controls in the request")
	assert.Equal(t, 0, judge["controls_failed"])
	assert.NotEmpty(t, judge["usage"].(map[string]any)["input_tokens"], "the judge's own tokens are recorded")
	rep := readYAMLFile(t, filepath.Join(runs[0], "report.yaml"))
	judges := rep["judges"].([]any)
	require.Len(t, judges, 1)
	totals := judges[0].(map[string]any)
	assert.Equal(t, "judge-large", totals["model"])
	assert.Equal(t, 0, totals["controls_failed"])
	assert.Greater(t, totals["controls"], 0)
	assert.Greater(t, totals["tokens_in"], 0)
}

// TestModelJudgeCacheAndRejudge judges a finished run after the fact, without calling any
// hook, and answers an unchanged scenario from the cache.
func TestModelJudgeCacheAndRejudge(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	dir, hookLog := judgeModule(t)
	fake, env := judgeServer(t)
	only := "-rook.only=SC-PASS,SC-FAIL"

	// No judge configured: llm_judge rows are Unable to Verify.
	res, err := goTest(t, dir, []string{goflags}, "./scenarios/fake", only)
	require.NoError(t, err, res.all)
	id := runIDFrom(t, res.output["TestFake"])
	name := "TestFake/SC-PASS/C1_llm_judge_the_agent_says_it_will_refund_ord_7"
	assert.Equal(t, "skip", res.action[name])
	assert.Contains(t, res.output[name], "Unable to Verify (undecidable): no judge model configured")
	calls, err := fakehook.ReadLog(hookLog)
	require.NoError(t, err)

	// With a judge: the finished run is judged again, and no hook runs.
	res, err = goTest(t, dir, env, "./scenarios/fake", "-rook.run="+id, "-rook.phases=judge")
	require.Error(t, err, "SC-FAIL fails now")
	assert.Equal(t, "pass", res.action[name], res.output[name])
	after, err := fakehook.ReadLog(hookLog)
	require.NoError(t, err)
	assert.Len(t, after, len(calls), "judging again called no hook")
	asked := fake.Total()
	assert.Equal(t, 2, asked)

	// A new run of the unchanged scenarios is answered from the cache.
	res, err = goTest(t, dir, env, "./scenarios/fake", only)
	require.Error(t, err)
	assert.Equal(t, "pass", res.action[name])
	assert.Equal(t, asked, fake.Total(), "no request reached the server")
	runs, err := filepath.Glob(filepath.Join(dir, ".rook", "runs", "fake", "*", "scenarios", "SC-PASS", "verdict.yaml"))
	require.NoError(t, err)
	cached := 0
	for _, f := range runs {
		if j, ok := readYAMLFile(t, f)["judge"].(map[string]any); ok && j["cached"] == true {
			cached++
			assert.Equal(t, "fake-judge-1", j["reported_model"])
		}
	}
	assert.Equal(t, 1, cached, "the verdict says its answer came from the cache")
	assert.False(t, strings.Contains(res.all, judgeKey))
}

// TestModelJudgeAudit: with -rook.judge-audit=100 every request is asked again with the
// agent's evidence removed. A judge that answers Pass there decides nothing in the run:
// every row it decided is Unable to Verify and marked judge_guessed, counted in report.yaml,
// and the run fails saying so without -v: SC-FAIL, judged first (one scenario at a time, in
// plan order) and answered carefully, is decided again at the run's end when SC-PASS's
// audit catches the judge guessing. A careful judge has none.
func TestModelJudgeAudit(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	dir, _ := judgeModule(t)
	for _, tc := range []struct {
		name           string
		pass, fail     string
		guessed, codes bool
	}{{"guessing", fakejudge.Guesser, fakejudge.GroundedFail, true, true}, {"careful", fakejudge.GroundedPass, fakejudge.GroundedFail, false, true}} {
		fake, env := judgeServer(t)
		fake.SetScript("SC-PASS", tc.pass)
		fake.SetScript("SC-FAIL", tc.fail)
		env = append(env, "ROOK_JUDGE_AUDIT=100", "ROOK_JUDGE_CACHE=off")
		res, err := goTest(t, dir, env, "./scenarios/fake", "-rook.only=SC-PASS,SC-FAIL", "-rook.concurrency=1")
		assert.Equal(t, tc.codes, err != nil, "%s: %s", tc.name, res.all)
		id := runIDFrom(t, res.output["TestFake"])
		runDir := filepath.Join(dir, ".rook", "runs", "fake", id)
		for _, sc := range []string{"SC-PASS", "SC-FAIL"} {
			assert.Len(t, fake.Requests(sc), 2, "%s %s: the request and its audit", tc.name, sc)
			v := readYAMLFile(t, filepath.Join(runDir, "scenarios", sc, "verdict.yaml"))
			audit := v["judge"].(map[string]any)["audit"].(map[string]any)
			row := v["criteria"].([]any)[0].(map[string]any)
			require.Equal(t, "llm_judge", row["check"])
			switch {
			case tc.guessed:
				assert.Equal(t, true, row["judge_guessed"], "%s %s: %v", tc.name, sc, row)
				assert.Equal(t, "Unable to Verify", row["status"], "%s %s: %v", tc.name, sc, row)
				assert.Equal(t, "Unable to Verify", v["status"], "%s %s", tc.name, sc)
				if sc == "SC-PASS" {
					assert.Equal(t, []any{"C1 Pass"}, audit["guessed"])
				} else {
					assert.Empty(t, audit["guessed"], "SC-FAIL's own audit was answered carefully")
				}
			default:
				assert.Nil(t, row["judge_guessed"], "%s %s", tc.name, sc)
				assert.Empty(t, audit["guessed"])
			}
		}
		totals := readYAMLFile(t, filepath.Join(runDir, "report.yaml"))["judges"].([]any)[0].(map[string]any)
		assert.Equal(t, 2, totals["audited"], tc.name)
		var md, html bytes.Buffer
		for format, out := range map[string]*bytes.Buffer{"md": &md, "html": &html} {
			var stderr bytes.Buffer
			require.Equal(t, 0, run([]string{"report", "-dir", filepath.Join(dir, ".rook", "runs"), "-run", id, "-format", format}, out, &stderr), stderr.String())
		}
		assert.Contains(t, md.String(), "; 2 request(s) asked again without the agent's evidence", tc.name)
		if tc.guessed {
			assert.Contains(t, md.String(), "**it guessed: 2 row(s) it decided are judge_guessed**")
			assert.Contains(t, html.String(), "<td>2 / <strong>2</strong></td>")
			assert.Equal(t, 2, totals["guessed"])
			assert.Contains(t, res.output["TestFake"], "was caught guessing")
			assert.Contains(t, res.output["TestFake"], "so it decides nothing in this run: the 2 row(s) it decided are Unable to Verify")
			assert.Contains(t, res.output["TestFake"], "--- FAIL: TestFake")
			assert.Contains(t, res.all, "rook.judge_guessed true")
		} else {
			assert.Nil(t, totals["guessed"])
			assert.NotContains(t, res.all, "caught guessing")
		}
	}
}

// TestModelJudgePreflight: a server that cannot answer the preflight question decides
// nothing in the run, and the test log says so once, at the top.
func TestModelJudgePreflight(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	dir, _ := judgeModule(t)
	fake, env := judgeServer(t)
	fake.SetScript("PREFLIGHT", fakejudge.Garbage)
	env = append(env, "ROOK_JUDGE_PREFLIGHT=on")
	res, err := goTest(t, dir, env, "./scenarios/fake", "-rook.only=SC-PASS,SC-FAIL")
	require.NoError(t, err, "nothing is decided by the judge, so nothing fails:\n%s", res.all)
	top := res.output["TestFake"]
	assert.Equal(t, 1, strings.Count(res.all, "holds no JSON object"), "the reason is stated once:\n%s", res.all)
	assert.Contains(t, top, "failed the preflight check, so it decides nothing in this run: the judge's answer holds no JSON object")
	for _, id := range []string{"SC-PASS", "SC-FAIL"} {
		name := "TestFake/" + id + "/C1_llm_judge_the_agent_says_it_will_refund_ord_7"
		assert.Equal(t, "skip", res.action[name])
		assert.Contains(t, res.output[name], "Unable to Verify (undecidable): the judge failed the preflight check at the start of the run")
	}
	assert.Empty(t, fake.Requests("SC-PASS"), "no scenario was sent to a judge that failed the preflight")
}

// A judge call cut short by Ctrl-C or by go test's -timeout leaves its rows Unable to
// Verify, which skip; the run still never exits 0.
func TestAnInterruptedJudgeCallFailsTheRun(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	dir, _ := judgeModule(t)
	fake, env := judgeServer(t)
	fake.Delay = time.Minute
	env = append(env, "ROOK_JUDGE_TIMEOUT=2m")
	bin := testBinary(t, dir, "fake")

	for _, tc := range []struct {
		name, timeout, says string
		interrupt           bool
	}{
		{"ctrl-c", "0", "was interrupted (interrupt signal received)", true},
		{"go test -timeout", "8s", "was interrupted (go test's -timeout is running out", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(fake.Requests("SC-SLOW"))
			cmd := exec.Command(bin, "-test.v", "-test.timeout="+tc.timeout, "-test.run=TestFake/SC-SLOW", "-rook.dir="+t.TempDir())
			cmd.Dir = filepath.Join(dir, "scenarios", "fake")
			cmd.Env = append(os.Environ(), env...)
			var output bytes.Buffer
			cmd.Stdout, cmd.Stderr = &output, &output
			require.NoError(t, cmd.Start())
			require.Eventually(t, func() bool { return len(fake.Requests("SC-SLOW")) > before }, 30*time.Second, 20*time.Millisecond,
				"the judge was never asked:\n%s", &output)
			if tc.interrupt {
				require.NoError(t, cmd.Process.Signal(os.Interrupt))
			}
			err := waitOrKill(t, cmd, &output)
			require.Error(t, err, "an interrupted run never exits 0:\n%s", output.String())
			assert.Contains(t, output.String(), "--- SKIP: TestFake/SC-SLOW/C1_llm_judge", "the cut judge call's row is Unable to Verify")
			assert.Contains(t, output.String(), tc.says)
			assert.Contains(t, output.String(), "--- FAIL: TestFake ")
		})
	}
}

// A judge that cannot be reached is said without -v, in the run's log and report.md's
// headline, even when other criteria were decided; -rook.strict fails the run on it.
func TestAnUnreachableJudgeIsSaid(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	dir, _ := judgeModule(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String() + "/v1"
	require.NoError(t, ln.Close()) // nothing listens there now
	env := []string{"ROOK_JUDGE_URL=" + closed, "ROOK_JUDGE_MODEL=m", "ROOK_JUDGE_RETRIES=0", "ROOK_JUDGE_PREFLIGHT=off", "ROOK_JUDGE_CACHE=off"}
	out, err := goTestInPackageEnv(t, dir, "fake", env, "-rook.only=SC-PASS")
	require.NoError(t, err, "the contains criterion passed; nothing failed:\n%s", out)
	assert.Contains(t, out, "rooktest: warning: the judge m at "+closed+" never answered 1 scenario(s) of this run")
	out, err = goTestInPackageEnv(t, dir, "fake", env, "-rook.only=SC-PASS", "-rook.strict")
	require.Error(t, err, out)
	assert.Contains(t, out, "never answered 1 scenario(s) of this run")
}

// TestAJudgePanelEndToEnd judges a suite with a panel of three judge servers, one careless
// (Pass to every statement, controls included): the careful two decide every criterion,
// the careless one is out of each request whose controls it fails, verdict.yaml records
// each member's answers, report.yaml the panel's totals and effective votes, and no
// member's key reaches a record or the output.
func TestAJudgePanelEndToEnd(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	dir, _ := judgeModule(t)
	var entries []string
	const carelessKey = "sk-careless-5c4b3a-never-shown"
	for _, m := range []struct{ name, script string }{{"careful-a", fakejudge.GroundedPass}, {"careful-b", fakejudge.GroundedPass}, {"careless", fakejudge.PassAll}} {
		fake := fakejudge.New(map[string]string{})
		fake.Default, fake.EchoAuth = m.script, true
		srv := httptest.NewServer(fake)
		t.Cleanup(srv.Close)
		entries = append(entries, m.name+"@"+srv.URL+"/v1")
	}
	env := []string{"ROOK_JUDGE_PANEL=" + strings.Join(entries, ", "), "ROOK_JUDGE_API_KEY=" + judgeKey, "ROOK_JUDGE_API_KEY_3=" + carelessKey,
		"ROOK_JUDGE_TIMEOUT=5s", "ROOK_JUDGE_RETRIES=1", "ROOK_JUDGE_PREFLIGHT=off", goflags}
	res, err := goTest(t, dir, env, "./scenarios/fake", "-run", "^TestFake$/^(SC-PASS|SC-FAIL|SC-GARBAGE)$")
	require.NoError(t, err, "every scenario's llm_judge criterion passes by the careful majority:\n%s", res.all)
	for _, id := range []string{"SC-PASS", "SC-FAIL", "SC-GARBAGE"} {
		name := "TestFake/" + id + "/C1_llm_judge_the_agent_says_it_will_refund_ord_7"
		assert.Equal(t, "pass", res.action[name], "%s:\n%s", id, res.output[name])
		assert.Contains(t, res.output[name], "panel of 3 (careful-a, careful-b, careless)")
	}
	assert.NotContains(t, res.all, judgeKey)
	assert.NotContains(t, res.all, carelessKey)
	records := filepath.Join(dir, ".rook")
	assertNoFileHolds(t, records, judgeKey)
	assertNoFileHolds(t, records, carelessKey)

	runs, err := filepath.Glob(filepath.Join(records, "runs", "fake", "*"))
	require.NoError(t, err)
	require.Len(t, runs, 1)
	v := readYAMLFile(t, filepath.Join(runs[0], "scenarios", "SC-PASS", "verdict.yaml"))
	panel := v["judge"].(map[string]any)["panel"].(map[string]any)
	assert.Equal(t, "majority", panel["rule"])
	members := panel["members"].([]any)
	require.Len(t, members, 3)
	careless := members[2].(map[string]any)
	assert.Equal(t, "careless", careless["model"])
	assert.Contains(t, careless["out"], "failed a control")
	assert.NotContains(t, members[0].(map[string]any), "out")

	rep := readYAMLFile(t, filepath.Join(runs[0], "report.yaml"))
	totals := rep["panel"].(map[string]any)
	assert.NotNil(t, totals["effective_votes"], "%v", totals)
	assert.Len(t, totals["pairs"], 3)
	for _, m := range totals["members"].([]any) {
		m := m.(map[string]any)
		if m["model"] == "careless" {
			assert.Equal(t, 3, m["out"], "out of every request: each has a control it answers wrong")
			assert.Less(t, m["controls_right"], m["controls"])
		} else {
			assert.Equal(t, 0, m["out"])
			assert.Equal(t, m["controls"], m["controls_right"])
		}
	}
	var md, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"report", "-dir", filepath.Join(records, "runs"), "-run", filepath.Base(runs[0]), "-format", "md"}, &md, &stderr), stderr.String())
	assert.Contains(t, md.String(), "Panel: 3 members (majority), worth 1.80 independent votes on the controls.")
	assert.Contains(t, md.String(), "careless: out of 3 of 3 request(s)")
	t.Logf("report.yaml panel: %v", totals)
}
