package lifecycle_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/fakehook"
	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/mcpprobe"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

func TestMain(m *testing.M) {
	fakehook.Main()
	os.Exit(m.Run())
}

const secret = "s3cr3t-value-123"

type fixture struct {
	run  *lifecycle.Run
	cfg  lifecycle.Config
	log  string
	dir  string
	logs *lines
}

// restart replaces the fixture's run with a new one that runs only sel.
func (f *fixture) restart(t *testing.T, sel lifecycle.Selection) {
	t.Helper()
	f.cfg.Selection = sel
	r, err := lifecycle.New(f.cfg, time.Now())
	require.NoError(t, err)
	f.run = r
	f.cfg.Selection = nil
}

// again opens the fixture's run for continuation, with this process's selection and extra
// environment for the hooks (behaviours set there change between processes; hook_env would
// change the profile).
func (f *fixture) again(t *testing.T, sel lifecycle.Selection, env ...string) *lifecycle.Run {
	t.Helper()
	f.run.Close() // as the earlier process would, by ending
	cfg := f.cfg
	cfg.Selection = sel
	cfg.Env = append(append([]string(nil), cfg.Env...), env...)
	r, err := lifecycle.Continue(cfg, f.run.ID, time.Now())
	require.NoError(t, err)
	f.run = r
	t.Cleanup(r.Close)
	return r
}

type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) add(s string) { l.mu.Lock(); l.l = append(l.l, s); l.mu.Unlock() }
func (l *lines) all() string  { l.mu.Lock(); defer l.mu.Unlock(); return strings.Join(l.l, "\n") }

// newRun makes a run of a profile whose five hooks are this test binary, acting as told
// by hookEnv (see package fakehook).
func newRun(t *testing.T, hookEnv map[string]string, hooksYAML string) *fixture {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "calls.jsonl")
	env := map[string]string{"FAKEHOOK": "1", "FAKEHOOK_LOG": log}
	for k, v := range hookEnv {
		env[k] = v
	}
	var b strings.Builder
	fmt.Fprintf(&b, "id: fake\nenv:\n  - {variable: FAKE_SECRET, purpose: test secret}\ncapabilities: {multi_turn: true, calls: true, usage: true}\nhook_env:\n")
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s: %q\n", k, env[k])
	}
	if hooksYAML == "" {
		hooksYAML = "hooks:\n  prepare: {command: [BIN]}\n  open: {command: [BIN]}\n  execute: {command: [BIN], timeout_seconds: 5}\n  close: {command: [BIN]}\n  collect: {command: [BIN]}\n"
	}
	b.WriteString(strings.ReplaceAll(hooksYAML, "BIN", fmt.Sprintf("%q", os.Args[0])))
	p, err := spec.ParseProfile(filepath.Join(dir, "fake.yaml"), dir, []byte(b.String()))
	require.NoError(t, err, b.String())
	cfg := lifecycle.Config{
		Workspace: dir, Project: "example.com/m", Agent: "agent", Profile: p,
		RecordsRoot: filepath.Join(dir, "runs"),
		Env: append(os.Environ(), "FAKE_SECRET="+secret, "ROOK_TURN=inherited", "ROOK_SCENARIO_ID=inherited",
			"ROOK_JUDGE_API_KEY=judge-key-never-for-hooks", "ROOK_FOO=inherited"),
		Redactor:    store.NewRedactor(map[string]string{"FAKE_SECRET": secret}),
		Concurrency: 1,
		Included:    []record.Entry{{ScenarioID: "SC-1", Why: "selected"}},
	}
	cfg.Probe = func(ctx context.Context, req record.Probe) record.Probe {
		return mcpprobe.Call(ctx, p.MCP, p.AgentDir, hook.Inherited(cfg.Env), mcpprobe.Request{Server: req.Server, Tool: req.Tool, Arguments: req.Arguments})
	}
	run, err := lifecycle.New(cfg, time.Now())
	require.NoError(t, err)
	return &fixture{run: run, cfg: cfg, log: log, dir: dir, logs: &lines{}}
}

func parseScenario(t *testing.T, body string) *scenario.Scenario {
	t.Helper()
	s, err := scenario.Parse("SC-1.yaml", []byte("id: SC-1\n"+body))
	require.NoError(t, err)
	return s
}

func (f *fixture) calls(t *testing.T) []fakehook.Call {
	t.Helper()
	c, err := fakehook.ReadLog(f.log)
	require.NoError(t, err)
	return c
}

func phases(calls []fakehook.Call) []string {
	var out []string
	for _, c := range calls {
		p := c.Phase
		if c.Env["ROOK_TURN"] != "" {
			p += "#" + c.Env["ROOK_TURN"]
		}
		out = append(out, p)
	}
	return out
}

func TestLifecycleEnvironmentStdinAndOrder(t *testing.T) {
	f := newRun(t, nil, "")
	require.Nil(t, f.run.Prepare(context.Background(), f.logs.add))
	sc := parseScenario(t, "goal: the final goal\nsetup_messages: [first, second]\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: final goal}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	a := o.Attempts[0]
	require.Empty(t, a.Failures)
	assert.Equal(t, record.Pass, o.Verdict.Status)

	calls := f.calls(t)
	assert.Equal(t, []string{"prepare", "open", "execute#1", "execute#2", "execute#3", "close", "collect"}, phases(calls))
	byPhase := map[string]fakehook.Call{}
	for _, c := range calls {
		assert.Equal(t, []string{c.Phase}, c.Args, "the phase is the only argument")
		assert.Equal(t, c.Phase, c.Env["ROOK_HOOK"])
		assert.Equal(t, f.run.ID, c.Env["ROOK_RUN_ID"])
		assert.Equal(t, f.run.RunStateDir, c.Env["ROOK_RUN_STATE_DIR"])
		assert.Equal(t, "agent", c.Env["ROOK_AGENT"])
		assert.Equal(t, "example.com/m", c.Env["ROOK_PROJECT"])
		assert.Equal(t, f.dir, c.Env["ROOK_WORKSPACE"])
		assert.NotContains(t, c.Env, "FAKE_NOPE")
		assert.NotContains(t, c.Env, "ROOK_JUDGE_API_KEY", "the judge's credential never reaches a hook")
		assert.NotContains(t, c.Env, "ROOK_FOO", "no inherited ROOK_ value reaches a hook")
		if c.Phase == "execute" {
			assert.NotEqual(t, "", c.Stdin)
		} else {
			assert.Equal(t, "", c.Stdin, "%s gets an empty stdin", c.Phase)
		}
		byPhase[c.Phase+c.Env["ROOK_TURN"]] = c
	}
	prep := byPhase["prepare"]
	for _, k := range []string{"ROOK_SCENARIO_ID", "ROOK_SESSION", "ROOK_TURN", "ROOK_CONVERSATION"} {
		assert.NotContains(t, prep.Env, k, "prepare is run-scoped; inherited and hook_env values are dropped")
	}
	assert.Equal(t, filepath.Join(f.run.Dir, "prepare", "hook-state"), prep.Env["ROOK_STATE_DIR"],
		"prepare gets a state folder of its own, as Rook's hooks require one in every phase")
	assert.DirExists(t, prep.Env["ROOK_STATE_DIR"])
	open := byPhase["open"]
	assert.Equal(t, "SC-1", open.Env["ROOK_SCENARIO_ID"])
	assert.Equal(t, filepath.Join(o.Dir, "hook-state"), open.Env["ROOK_STATE_DIR"])
	assert.NotContains(t, open.Env, "ROOK_TURN")
	assert.NotContains(t, open.Env, "ROOK_CONVERSATION")
	for i, in := range []string{"first", "second", "the final goal"} {
		c := byPhase[fmt.Sprintf("execute%d", i+1)]
		assert.Equal(t, in, c.Stdin, "turn %d", i+1)
		assert.Equal(t, "conv-1", c.Env["ROOK_CONVERSATION"])
		assert.Equal(t, open.Env["ROOK_SESSION"], c.Env["ROOK_SESSION"])
	}
	for _, p := range []string{"close", "collect"} {
		assert.Equal(t, "conv-1", byPhase[p].Env["ROOK_CONVERSATION"], p)
		assert.NotContains(t, byPhase[p].Env, "ROOK_TURN", p)
	}
	assert.Contains(t, f.logs.all(), "execute turn 2: fake execute hook running", "stderr is streamed as progress")
}

func TestExecuteFailureStillClosesAndCollects(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": "exit:3:agent backend unavailable"}, "")
	sc := parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: not_contains, params: {text: x}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	a := o.Attempts[0]
	assert.Equal(t, []string{"open", "execute#1", "close", "collect"}, phases(f.calls(t)))
	require.Len(t, a.Failures, 1)
	pe := a.Failures[0]
	assert.Equal(t, spec.Execute, pe.Phase)
	assert.Equal(t, 1, pe.Turn)
	assert.Equal(t, 3, pe.ExitCode)
	assert.Contains(t, pe.Stderr, "agent backend unavailable")
	assert.Contains(t, pe.Error(), "execute hook failed (turn 1, scenario SC-1, ")
	assert.Contains(t, pe.Error(), "exited with status 3")
	assert.Equal(t, record.Fail, o.Verdict.Status)
	require.Len(t, a.Verdict.Criteria, 1)
	assert.Equal(t, record.UnableToVerify, a.Verdict.Criteria[0].Status, "a failed execute is never a pass, even for not_contains")
	assert.Equal(t, record.AgentNeverRan, a.Verdict.Criteria[0].Reason)
	v := readYAML(t, filepath.Join(o.Dir, "verdict.yaml"))
	assert.Equal(t, "Fail", v["status"])
	assert.Contains(t, v["failure"], "exited with status 3")
}

func TestTimedOutExecuteIsKilledAndCloseRuns(t *testing.T) {
	// The timeout leaves a race-built test binary time to start and log its call on a
	// loaded machine (a cold CI build runs beside it).
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": "hang"},
		"hooks:\n  open: {command: [BIN]}\n  execute: {command: [BIN], timeout_seconds: 2}\n  close: {command: [BIN]}\n")
	start := time.Now()
	o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\n"), f.logs.add)
	a := o.Attempts[0]
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Equal(t, []string{"open", "execute#1", "close"}, phases(f.calls(t)))
	require.Len(t, a.Failures, 1)
	assert.True(t, a.Failures[0].TimedOut)
	assert.Contains(t, a.Failures[0].Error(), "timed out after 2s")
	hooks := readJSON(t, filepath.Join(o.Dir, "hooks.json"))
	exec := hooks["phases"].(map[string]any)["execute"].(map[string]any)
	assert.Equal(t, true, exec["timed_out"])
	assert.Equal(t, false, exec["ok"])
}

func TestBadStdoutIsQuoted(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": "json:Traceback (most recent call last)"}, "")
	o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\n"), f.logs.add)
	a := o.Attempts[0]
	require.Len(t, a.Failures, 1)
	assert.Contains(t, a.Failures[0].Error(), `bad stdout: stdout is not JSON`)
	assert.Contains(t, a.Failures[0].Error(), `"Traceback (most recent call last)"`)
}

func TestOpenFailureSkipsExecuteButCloses(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_OPEN": "exit:1:no seat"}, "")
	o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\n"), f.logs.add)
	a := o.Attempts[0]
	assert.Equal(t, []string{"open", "close"}, phases(f.calls(t)))
	require.Len(t, a.Failures, 1)
	assert.Equal(t, spec.Open, a.Failures[0].Phase)
	assert.Equal(t, record.Fail, o.Verdict.Status)
}

func TestCloseFailureKeepsTheAnswer(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_CLOSE": "exit:4:lock already released"}, "")
	sc := parseScenario(t, "goal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	a := o.Attempts[0]
	assert.Empty(t, a.Failures)
	require.Len(t, a.Problems, 1)
	assert.Equal(t, spec.Close, a.Problems[0].Phase)
	assert.Equal(t, record.Pass, o.Verdict.Status)
}

func TestMultiTurnWithoutConversationStops(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_OPEN": "json:{}", "FAKEHOOK_EXECUTE": `json:{"output": "hi"}`}, "")
	o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\nsetup_messages: [one]\n"), f.logs.add)
	a := o.Attempts[0]
	assert.Equal(t, []string{"open", "execute#1", "close", "collect"}, phases(f.calls(t)))
	require.Len(t, a.Failures, 1)
	assert.Contains(t, a.Failures[0].Error(), "no conversation handle")
}

func TestCollectDelayCountsFromClose(t *testing.T) {
	f := newRun(t, nil, "hooks:\n  execute: {command: [BIN]}\n  close: {command: [BIN]}\n  collect: {command: [BIN], delay_seconds: 0.4}\n")
	o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\n"), f.logs.add)
	a := o.Attempts[0]
	require.Empty(t, a.Failures)
	hooks := readJSON(t, filepath.Join(o.Dir, "hooks.json"))["phases"].(map[string]any)
	closed, err := time.Parse(time.RFC3339Nano, hooks["close"].(map[string]any)["ended_at"].(string))
	require.NoError(t, err)
	collected, err := time.Parse(time.RFC3339Nano, hooks["collect"].(map[string]any)["at"].(string))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, collected.Sub(closed), 400*time.Millisecond)
	assert.Contains(t, f.logs.all(), "collect: waiting")
}

func TestRecordsAreWholeAndRedacted(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_STDERR": "token is $FAKE_SECRET", "FAKEHOOK_EXECUTE": "reply:the key is $FAKE_SECRET"}, "")
	require.Nil(t, f.run.Prepare(context.Background(), f.logs.add))
	sc := parseScenario(t, "goal: g\nforbidden: [key]\nacceptance_criteria:\n  - {statement: s, check: called, params: {name: x}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.Len(t, o.Attempts, 1)
	require.NotNil(t, o.Verdict, "judged")
	require.Len(t, o.Verdict.ForbiddenHits, 1, "the reply names the key: a forbidden hit")
	assert.Contains(t, o.Verdict.ForbiddenHits[0].Quote, "the key is [redacted:FAKE_SECRET]", "the hit quotes the reply as recorded, redacted")
	_, err := f.run.Finish(context.Background(), time.Now())
	require.NoError(t, err)
	assert.NotContains(t, f.logs.all(), secret, "hook output is redacted as it comes in, before anything logs it")
	assert.Contains(t, f.logs.all(), "token is [redacted:FAKE_SECRET]")

	want := []string{"run.yaml", "profile.yaml", "report.yaml", "scenarios/SC-1/snapshot.yaml", "scenarios/SC-1/request.json",
		"scenarios/SC-1/response.json", "scenarios/SC-1/hooks.json", "scenarios/SC-1/verdict.yaml"}
	for _, w := range want {
		assert.FileExists(t, filepath.Join(f.run.Dir, w))
	}
	err = filepath.WalkDir(f.run.Dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.NotContains(t, string(data), secret, path)
		assert.False(t, strings.HasPrefix(d.Name(), "."), "no temporary file left behind: %s", path)
		switch filepath.Ext(path) {
		case ".json":
			var v any
			assert.NoError(t, json.Unmarshal(data, &v), path)
		case ".yaml":
			var v any
			assert.NoError(t, yaml.Unmarshal(data, &v), path)
		}
		return nil
	})
	require.NoError(t, err)
	resp := readJSON(t, filepath.Join(o.Dir, "response.json"))
	assert.Equal(t, "the key is [redacted:FAKE_SECRET]", resp["output"])
	assert.Equal(t, []any{}, resp["calls"], "calls: [] stays distinct from absent calls")
	v := readYAML(t, filepath.Join(o.Dir, "verdict.yaml"))
	assert.Equal(t, "Fail", v["status"], "the forbidden hit fails the scenario")
	rep := readYAML(t, filepath.Join(f.run.Dir, "report.yaml"))
	totals := rep["totals"].(map[string]any)
	assert.Equal(t, 1, totals["planned"])
	assert.Equal(t, 1, totals["failed"])
	run := readYAML(t, filepath.Join(f.run.Dir, "run.yaml"))
	assert.Equal(t, []any{"prepare", "open", "execute", "close", "collect", "judge"}, run["phases_run"])
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(data, &v))
	return v
}

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, yaml.Unmarshal(data, &v))
	return v
}
