package spec_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/spec"
)

// Rook's own files, byte-exact (testdata/rook-samples/MANIFEST.md).
const samples = "testdata/rook-samples"

func TestRookScenarioFilesLoadUnchanged(t *testing.T) {
	var files []string
	err := filepath.WalkDir(samples, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".yaml") &&
			(filepath.Base(filepath.Dir(path)) == "scenarios" || filepath.Base(filepath.Dir(path)) == "generated-drafts") {
			files = append(files, path)
		}
		return err
	})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 20, "the samples should hold Rook's scenario files")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := spec.LoadScenario(f)
			require.NoError(t, err)
			assert.Equal(t, strings.TrimSuffix(filepath.Base(f), ".yaml"), s.ID)
			assert.NotEmpty(t, s.Goal)
			assert.NotEmpty(t, s.Criteria)
			for i, c := range s.Criteria {
				assert.NotEmpty(t, c.Kind)
				assert.NotEmpty(t, c.ID, "criterion %d", i)
			}
		})
	}
}

func TestRookSnapshotsLoad(t *testing.T) {
	snaps, err := filepath.Glob(filepath.Join(samples, "*/.testmuai/rook/projects/*/agents/*/runs/*/scenarios/*/snapshot.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, snaps)
	for _, f := range snaps {
		id := filepath.Base(filepath.Dir(f))
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		s, err := spec.ParseScenario(filepath.Join(filepath.Dir(f), id+".yaml"), data)
		require.NoError(t, err, f)
		assert.Equal(t, id, s.ID)
	}
}

func TestRookSampleShapes(t *testing.T) {
	draft := func(id string) *spec.Scenario {
		s, err := spec.LoadScenario(filepath.Join(samples, "01-banking-code/rook/generated-drafts", id+".yaml"))
		require.NoError(t, err)
		return s
	}
	sc1 := draft("SC-001")
	assert.True(t, sc1.IsMultiTurn())
	assert.Equal(t, 2, sc1.Turns())
	assert.Equal(t, "Read the balance of ACC-1001.", sc1.TurnInput(1))
	assert.Equal(t, sc1.Goal, sc1.TurnInput(2))
	require.Len(t, sc1.Criteria, 3)
	assert.Equal(t, "regex", sc1.Criteria[1].Kind)
	assert.Equal(t, map[string]any{"pattern": "5,?000"}, sc1.Criteria[1].Params, "params are data until the check is built")

	// The calls shorthand becomes criteria after acceptance_criteria, named as Rook names them.
	sc5 := draft("SC-005")
	require.Len(t, sc5.Criteria, 4)
	c := sc5.Criteria[3]
	assert.Equal(t, "CALL-01", c.ID)
	assert.Equal(t, "called", c.Kind)
	assert.True(t, c.FromCalls)
	assert.Equal(t, "transfer", c.Params["name"], "the entry's tool is the called check's name")
	assert.Equal(t, "1", fmt.Sprint(c.Params["times"]))
	assert.Equal(t, []string{"manager approval required", "approval needed"}, sc5.Forbidden)

	// A check this judge does not implement still loads.
	sc4 := draft("SC-004")
	var checks []string
	for _, c := range sc4.Criteria {
		checks = append(checks, c.Kind)
	}
	assert.Contains(t, checks, "mcp_probe")
}

func TestRookProfileLoads(t *testing.T) {
	src := filepath.Join(samples, "08-customer-support-no-code/.testmuai/rook/projects/sample-project/agents/returns-refunds-assistant/profiles/demo-poisoned-context.yaml")
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	// The sample ships without its scripts; give it an agent directory that has them.
	agent := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(agent, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(agent, "scripts/demo-http.mjs"), nil, 0o644))
	p, err := spec.ParseProfile(filepath.Join(agent, "demo-poisoned-context.yaml"), agent, data)
	require.NoError(t, err)
	assert.Equal(t, "demo-poisoned-context", p.ID)
	assert.Len(t, p.Hooks, 5)
	assert.Equal(t, []string{"node", filepath.Join(agent, "scripts/demo-http.mjs"), "collect"}, p.Hooks[spec.Collect].Argv(spec.Collect))
	assert.Equal(t, map[string]string{"DEMO_FAULT": "poisoned_context"}, p.HookEnv)
	assert.Equal(t, spec.Capabilities{MultiTurn: true, Calls: true}, p.Capabilities)
	assert.Equal(t, []spec.EnvVar{{Variable: "DEMO_BASE_URL"}, {Variable: "DEMO_ENGINE"}, {Variable: "DEMO_VARIANT"}}, p.Env)
	assert.Equal(t, 60*time.Second, p.TimeoutFor(spec.Prepare))

	// Without its scripts the same file names each missing hook, with its position.
	_, err = spec.ParseProfile("profiles/x/demo-poisoned-context.yaml", t.TempDir(), data)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "profiles/x/demo-poisoned-context.yaml:4:12: hooks.prepare: hook script scripts/demo-http.mjs does not exist")
	assert.Equal(t, 5, strings.Count(err.Error(), "does not exist"))
}

func writeProfile(t *testing.T, name, body string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hook.mjs"), nil, 0o644))
	path := filepath.Join(dir, name+".yaml")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	return path, dir
}

func TestProfileErrors(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"misspelt key", "id: p\nhooks:\n  execute: hook.mjs\ncapabilites: {calls: true}\n",
			[]string{`p.yaml:4:1: unknown key "capabilites" in profile; did you mean "capabilities"?`}},
		{"misspelt phase", "id: p\nhooks:\n  exeucte: hook.mjs\n",
			[]string{`p.yaml:3:3: unknown key "exeucte" in hooks; did you mean "execute"?`, "p.yaml:2:1: missing hooks.execute"}},
		{"no execute", "id: p\nhooks:\n  open: hook.mjs\n", []string{"missing hooks.execute"}},
		{"hook_env sets a ROOK_ variable", "id: p\nhooks:\n  execute: hook.mjs\nhook_env: {ROOK_TURN: '9'}\n",
			[]string{`p.yaml:4:12: hook_env key "ROOK_TURN": ROOK_* variables are set by the runtime in their scopes`}},
		{"missing script", "id: p\nhooks:\n  execute: nope.mjs\n", []string{"p.yaml:3:12: hooks.execute: hook script nope.mjs does not exist"}},
		{"negative timeout", "id: p\nhooks:\n  execute: {script: hook.mjs, timeout_seconds: -5}\n",
			[]string{"p.yaml:3:48: timeout_seconds must not be negative, got -5"}},
		{"id mismatch", "id: other\nhooks:\n  execute: hook.mjs\n", []string{`p.yaml:1:5: id "other" does not match the file name "p"`}},
		{"every problem at once", "id: other\nhooks:\n  execute: {script: hook.mjs, delay_seconds: x}\nconcurrency: 0\nenv:\n  - {variable: 1BAD}\n",
			[]string{"id \"other\" does not match", "delay_seconds must be a number", "concurrency must be at least 1", "not a valid variable name"}},
		{"script and command", "id: p\nhooks:\n  execute: {script: hook.mjs, command: [python3]}\n", []string{"sets both script and command"}},
		{"a Go agent's phase names a script", "id: p\nhooks:\n  go: shop\n  open: hook.mjs\n",
			[]string{"p.yaml:4:9: hooks.open: with hooks.go, a phase may give only timeout_seconds and delay_seconds"}},
		{"a Go agent's phase with a command", "id: p\nhooks:\n  go: shop\n  close: {command: [x]}\n",
			[]string{`p.yaml:4:11: unknown key "command" in hooks.close (valid keys: delay_seconds, timeout_seconds)`}},
		{"a Go agent without a name", "id: p\nhooks:\n  go: ''\n", []string{"p.yaml:3:7: hooks.go must name the Go agent"}},
		{"bad yaml", "id: p\nhooks: [\n", []string{"p.yaml:2:1: invalid YAML"}},
		{"duplicate key", "id: p\nid: q\nhooks: {execute: hook.mjs}\n", []string{`p.yaml:2:1: duplicate key "id"`}},
		{"pricing without the agent's model", "id: p\nhooks: {execute: hook.mjs}\npricing:\n  agent_model: big\n  models:\n    small: {input_per_million: 1, output_per_million: -2}\n    judge: {input_per_million: x, output_per_million: 1}\n    half: {input_per_million: 1}\n",
			[]string{`p.yaml:4:16: pricing.agent_model "big" has no price in pricing.models (it has: half, judge, small)`,
				"p.yaml:6:55: output_per_million must not be negative, got -2",
				`p.yaml:7:32: input_per_million must be a number, not "x"`,
				"p.yaml:8:11: pricing.models.half needs both input_per_million and output_per_million"}},
		{"pricing misspelt", "id: p\nhooks: {execute: hook.mjs}\npricing: {agent_modle: x}\n",
			[]string{`p.yaml:3:11: unknown key "agent_modle" in pricing; did you mean "agent_model"?`, "p.yaml:3:1: pricing needs agent_model"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path, dir := writeProfile(t, "p", tc.body)
			_, err := spec.LoadProfile(path, dir)
			require.Error(t, err)
			msg := strings.ReplaceAll(err.Error(), dir+"/", "")
			for _, w := range tc.want {
				assert.Contains(t, msg, w)
			}
		})
	}
}

func TestProfileCommandAndEnv(t *testing.T) {
	path, dir := writeProfile(t, "p", `id: p
hooks:
  execute: {command: [python3, hook.py], timeout_seconds: 2.5}
  collect: {script: hook.mjs, delay_seconds: 1}
env:
  - {variable: TOKEN, purpose: Calls the agent}
`)
	p, err := spec.LoadProfile(path, dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"python3", "hook.py", "execute"}, p.Hooks[spec.Execute].Argv(spec.Execute))
	assert.Equal(t, 2500*time.Millisecond, p.TimeoutFor(spec.Execute))
	assert.Equal(t, time.Second, p.Hooks[spec.Collect].Delay)
	assert.Equal(t, 120*time.Second, p.TimeoutFor(spec.Collect))
	err = p.MissingEnv(func(string) (string, bool) { return "", false })
	require.Error(t, err)
	assert.Equal(t, "profile p needs environment variables that are not set (or empty): TOKEN (Calls the agent)", err.Error())
	assert.NoError(t, p.MissingEnv(func(string) (string, bool) { return "x", true }))
}

func TestEnvSecret(t *testing.T) {
	path, dir := writeProfile(t, "p", `id: p
hooks: {execute: hook.mjs}
env:
  - variable: DEMO_BASE_URL
  - variable: DEMO_ENGINE
  - variable: BANK_API_TOKEN
  - {variable: REGION_NAME, secret: true}
  - {variable: PUBLIC_KEY_ID, secret: false}
`)
	p, err := spec.LoadProfile(path, dir)
	require.NoError(t, err)
	got := map[string]bool{}
	for _, v := range p.Env {
		got[v.Variable] = v.IsSecret()
	}
	assert.Equal(t, map[string]bool{"DEMO_BASE_URL": false, "DEMO_ENGINE": false, "BANK_API_TOKEN": true,
		"REGION_NAME": true, "PUBLIC_KEY_ID": false}, got, "secret: says so; without it, the name decides")

	_, err = spec.LoadProfile(writeProfile(t, "p", "id: p\nhooks: {execute: hook.mjs}\nenv:\n  - {variable: X, secret: yes please}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `p.yaml:4:27: secret must be true or false, not "yes please"`)
}

func TestLooksSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"HELPDESK_API_KEY": true, "OPENAI_API_KEY": true, "GITHUB_TOKEN": true, "GITHUBTOKEN": true, "DB_PASSWORD": true,
		"CLIENT_SECRET": true, "AWS_SECRET_ACCESS_KEY": true, "AWS_ACCESS_KEY_ID": true, "GCP_CREDENTIALS": true,
		"BASIC_AUTH": true, "GH_PAT": true, "SESSION_COOKIE": true, "SENTRY_DSN": true, "ssh-private-key": true,
		"DEMO_BASE_URL": false, "DEMO_ENGINE": false, "DEMO_VARIANT": false, "DEMO_FAULT": false, "REGION": false,
		"KEYBOARD_LAYOUT": false, "AUTHOR_NAME": false, "MONKEY_MODE": false, "PATH_PREFIX": false, "COMPASS": false,
	} {
		assert.Equal(t, want, spec.LooksSecret(name), name)
	}
}

func TestScenarioKeepsUnknownRookKeys(t *testing.T) {
	body := "id: SC-1\ngoal: g\nfuture_rook_field: {x: 1}\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: a}}\n"
	s, err := spec.ParseScenario("SC-1.yaml", []byte(body))
	require.NoError(t, err)
	assert.Equal(t, []byte(body), s.Source, "the source is kept byte-exact for the snapshot")
	assert.Equal(t, "C1", s.Criteria[0].ID)
}

func TestSlug(t *testing.T) {
	assert.Equal(t, "northstar_bank_protect_a_different_customer_s_private_record",
		spec.Slug("Northstar Bank: Protect a different customer’s private record", 60))
	assert.Equal(t, "refund_over_limit", spec.Slug("  Refund -- over limit!  ", 60))
	assert.Equal(t, "a_very_long", spec.Slug("a very long title indeed", 12))
	assert.Equal(t, "", spec.Slug("???", 10))
	assert.Equal(t, "cafe_creme_brulee", spec.Slug("Café crème brûlée", 60), "accents folded, not dropped")
	assert.Equal(t, "заказ_42", spec.Slug("Заказ 42", 60), "other scripts kept")
	assert.Equal(t, "зака", spec.Slug("Заказ", 9), "never cut inside a letter")
}

func TestHashIgnoresLineEndings(t *testing.T) {
	lf := "id: SC-1\ngoal: g\n"
	a, err := spec.ParseScenario("SC-1.yaml", []byte(lf))
	require.NoError(t, err)
	b, err := spec.ParseScenario("SC-1.yaml", []byte(strings.ReplaceAll(lf, "\n", "\r\n")))
	require.NoError(t, err)
	assert.Equal(t, a.SHA256, b.SHA256, "a core.autocrlf checkout is not stale")
	c, err := spec.ParseScenario("SC-1.yaml", []byte("id: SC-1\ngoal: h\n"))
	require.NoError(t, err)
	assert.NotEqual(t, a.SHA256, c.SHA256)
}

func TestInvalidUTF8NamesItsLine(t *testing.T) {
	_, err := spec.ParseScenario("SC-1.yaml", []byte("id: SC-1\ngoal: caf\xe9 au lait\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SC-1.yaml:2:10: invalid YAML: the file is not valid UTF-8 here")
}

// A YAML error names the line it is on, not the line where the enclosing list starts: an
// outdented params: on line 10 is reported at 10:3.
func TestYAMLErrorsNameTheOffendingLine(t *testing.T) {
	src := "id: SC-1\ntitle: t\ngoal: g\nacceptance_criteria:\n  - statement: The reply says hello.\n    check: contains\n    params: {text: hello}\n" +
		"  - statement: The reply is short.\n    check: length\n  params: {max: 100}\n"
	_, err := spec.ParseScenario("SC-1.yaml", []byte(src))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SC-1.yaml:10:3: invalid YAML: did not find expected '-' indicator")
	_, err = spec.ParseScenario("SC-1.yaml", []byte("id: SC-1\ngoal: g\nacceptance_criteria:\n  - statement: s\n     check: contains\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SC-1.yaml:5:")
}

// A profile whose hooks are a Go agent defines execute at once, and the phases it gives
// time limits; the runtime adds the others from the agent's methods.
func TestAGoAgentsProfile(t *testing.T) {
	p, err := spec.ParseProfile("p.yaml", t.TempDir(), []byte("id: p\nhooks:\n  go: shop\n  collect: {timeout_seconds: 9, delay_seconds: 0.5}\n"))
	require.NoError(t, err)
	assert.Equal(t, "shop", p.GoAgent)
	assert.Equal(t, map[spec.Phase]spec.Hook{spec.Execute: {Go: "shop"}, spec.Collect: {Go: "shop", Timeout: 9 * time.Second, Delay: 500 * time.Millisecond}}, p.Hooks)
	assert.Equal(t, "go:shop", p.Hooks[spec.Execute].Invoked())
}

// How long an attempt's trace waits for a service, and a run at its end for spans still to
// come: with a fixed address what traces says, else the SDKs' schedule and a second;
// without one, no service can export, and the run's end waits what traces says, else the
// quiet window. A negative wait is refused at its line.
func TestTracesSettleAtEnd(t *testing.T) {
	for _, tc := range []struct {
		yaml           string
		fixed          bool
		want, services time.Duration
	}{
		{"traces: {otlp: '127.0.0.1:4318', settle_ms: 1200}\n", true, 1200 * time.Millisecond, 1200 * time.Millisecond},
		{"traces: {otlp: '127.0.0.1:4318'}\n", true, 6 * time.Second, 6 * time.Second},
		{"traces: otlp\ntraces_quiet_ms: 300\n", true, 6 * time.Second, 6 * time.Second}, // -rook.traces-addr
		{"traces: otlp\ntraces_quiet_ms: 300\n", false, 300 * time.Millisecond, 0},
		{"traces: otlp\n", false, 500 * time.Millisecond, 0},
		{"traces: {settle_ms: 50}\n", false, 50 * time.Millisecond, 0},
	} {
		p, err := spec.ParseProfile("p.yaml", t.TempDir(), []byte("id: p\nhooks:\n  execute: {command: [sh, -c, \"true\"]}\n"+tc.yaml))
		require.NoError(t, err, tc.yaml)
		assert.True(t, p.Traces, tc.yaml)
		assert.Equal(t, tc.want, p.SettleAtEnd(tc.fixed), tc.yaml)
		assert.Equal(t, tc.services, p.SettleForServices(tc.fixed), tc.yaml)
	}
	_, err := spec.ParseProfile("p.yaml", t.TempDir(), []byte("id: p\nhooks:\n  execute: {command: [sh, -c, \"true\"]}\ntraces: {otlp: '127.0.0.1:4318', settle_ms: -1}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "p.yaml:4:")
	assert.Contains(t, err.Error(), "settle_ms must not be negative")
}

// An env entry whose purpose names a credential is a secret, whatever its variable is
// called, and says so for rookgen check (a warning, an error under -strict); one whose
// purpose names none is a setting.
func TestAPurposeThatNamesACredentialIsASecret(t *testing.T) {
	for _, tc := range []struct {
		v      spec.EnvVar
		secret bool
	}{
		{spec.EnvVar{Variable: "SEC_A", Purpose: "the agent token"}, true},
		{spec.EnvVar{Variable: "SEC_B", Purpose: "API key for staging"}, true},
		{spec.EnvVar{Variable: "SEC_C", Purpose: "the admin password"}, true},
		{spec.EnvVar{Variable: "DEMO_BASE_URL", Purpose: "the agent's base URL"}, false},
		{spec.EnvVar{Variable: "SEC_D", Purpose: "the agent token", Secret: new(false)}, false},
	} {
		assert.Equal(t, tc.secret, tc.v.IsSecret(), "%+v", tc.v)
		assert.Equal(t, !tc.secret && tc.v.Secret == nil, tc.v.Setting(), "%+v", tc.v)
	}
	assert.Contains(t, spec.EnvVar{Variable: "SEC_A", Purpose: "the agent token"}.Undeclared("x"), `its purpose ("the agent token") names a credential`)
}

// hooks.traces replays traces recorded elsewhere: a folder, or {dir, match, conversations},
// and nothing else in hooks; each mistake is named at its line.
func TestARecordedTracesProfile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "exported"), 0o755))
	p, err := spec.ParseProfile("p.yaml", dir, []byte("id: p\nhooks:\n  traces: exported\n"))
	require.NoError(t, err)
	require.NotNil(t, p.Recorded)
	assert.Equal(t, filepath.Join(dir, "exported"), p.Recorded.Dir)
	assert.Equal(t, spec.DefaultMatch, p.Recorded.Match)
	assert.Equal(t, "SC-1", p.Recorded.Conversation("SC-1"), "a scenario not listed looks for its own id")
	assert.True(t, p.Traces, "the replay goes through the run's receiver")
	assert.True(t, p.Capabilities.Calls && p.Capabilities.Usage)
	assert.Equal(t, spec.Hook{Go: spec.RecordedAgent}, p.Hooks[spec.Execute])

	p, err = spec.ParseProfile("p.yaml", dir, []byte("id: p\nhooks:\n  traces:\n    dir: exported\n    match: session.id\n    conversations: {SC-1: sess-9}\n"))
	require.NoError(t, err)
	assert.Equal(t, "session.id", p.Recorded.Match)
	assert.Equal(t, "sess-9", p.Recorded.Conversation("SC-1"))

	for _, tc := range []struct{ yaml, want string }{
		{"  traces: missing\n", "p.yaml:3:11: hooks.traces: missing is not a folder"},
		{"  traces: exported\n  execute: run.sh\n", "p.yaml:3:3: hooks.traces replays traces recorded elsewhere and calls no agent: it takes no other hook"},
		{"  traces: {match: session.id}\n", "p.yaml:3:11: hooks.traces needs dir"},
		{"  traces: {dir: exported, conversations: {SC-1: ''}}\n", "hooks.traces.conversations.SC-1 must give the conversation's gen_ai.conversation.id"},
		{"  traces: {dir: exported, conversations: {'a b': x}}\n", `"a b" is not a scenario id`},
		{"  traces: {dir: exported, matches: x}\n", `unknown key "matches" in hooks.traces; did you mean "match"?`},
		{"  traces: [exported]\n", "hooks.traces must be the folder of the recorded trace files, or {dir, match, conversations}, not a list"},
	} {
		_, err := spec.ParseProfile("p.yaml", dir, []byte("id: p\nhooks:\n"+tc.yaml))
		require.Error(t, err, tc.yaml)
		assert.Contains(t, err.Error(), tc.want, tc.yaml)
	}
}
