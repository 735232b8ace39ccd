package rooktest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
)

func TestDecide(t *testing.T) {
	p := &spec.Profile{ID: "p", Capabilities: spec.Capabilities{MultiTurn: true, Usage: false}}
	sc := &scenario.Scenario{Scenario: spec.Scenario{ID: "SC-1", Class: "functional", Category: "negative", Tags: []string{"refunds", "smoke"}}}
	excluded := &scenario.Scenario{Scenario: spec.Scenario{ID: "SC-2", Excluded: true}}
	tokens := &scenario.Scenario{Scenario: spec.Scenario{ID: "SC-3", RequiresUsage: true}}
	off := &scenario.Scenario{Scenario: spec.Scenario{ID: "SC-4", NotExecutable: true, SkipReason: "needs a file upload"}}
	tests := []struct {
		name string
		o    options
		sc   *scenario.Scenario
		want decision
		why  string
	}{
		{"everything by default", options{}, sc, include, ""},
		{"only names it", options{only: []string{"SC-1"}}, sc, include, ""},
		{"only names another", options{only: []string{"SC-9"}}, sc, skip, "not selected: not named by -rook.only"},
		{"a matching tag", options{tags: []string{"smoke", "x"}}, sc, include, ""},
		{"no matching tag", options{tags: []string{"x"}}, sc, skip, "not selected: it has none of the tags x"},
		{"class and category narrow together", options{classes: []string{"functional"}, categories: []string{"happy_path"}}, sc, skip,
			`not selected: its category "negative" is not happy_path`},
		{"excluded by default", options{}, excluded, skip, "excluded (excluded: true); name it in -rook.only to run it"},
		{"excluded but named", options{only: []string{"SC-2"}}, excluded, include, ""},
		{"usage without the capability", options{}, tokens, unrunnable, "it grades token usage and p's hooks report none (capabilities.usage is false)"},
		{"not executable", options{}, off, skip, "not executable: needs a file upload"},
		{"a continued run keeps its plan", options{run: "R1"}, sc, skip, "not planned by run R1, which keeps the plan it started with"},
		{"-rook.failed runs what did not pass", options{failed: "R0", rerun: map[string]bool{"SC-1": true}, rerunPlanned: map[string]bool{"SC-1": true}}, sc, include, ""},
		{"-rook.failed leaves what passed", options{failed: "R0", rerun: map[string]bool{"SC-9": true}, rerunPlanned: map[string]bool{"SC-1": true, "SC-9": true}}, sc, skip,
			"not selected: it passed in run R0 (-rook.failed)"},
		{"-rook.failed never says a scenario it did not run passed", options{failed: "R0", rerun: map[string]bool{"SC-9": true}, rerunPlanned: map[string]bool{"SC-9": true}}, sc, skip,
			"not selected: run R0 did not run it (-rook.failed runs again what that run ran and did not pass)"},
		{"a continued run runs what it planned", options{run: "R1"}, excluded, include, ""},
		{"flags narrow a continued run's plan", options{run: "R1", only: []string{"SC-9"}}, excluded, skip, "not selected: not named by -rook.only"},
	}
	planned := map[string]bool{"SC-2": true}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var plan map[string]bool
			if tc.o.run != "" {
				plan = planned
			}
			d, why := planOne(tc.o, p, briefFor(tc.sc), plan)
			assert.Equal(t, tc.want, d)
			assert.Equal(t, tc.why, why)
		})
	}
}

// settingsOf are settings with flags given on the command line and an environment of env.
func settingsOf(flags, env map[string]string) settings {
	s := settings{given: map[string]bool{}, flag: func(n string) string { return flags[n] }, getenv: func(k string) string { return env[k] }}
	for n := range flags {
		s.given[n] = true
	}
	return s
}

// Every -rook.* flag has an environment twin, which a flag given on the command line
// overrides; an error names the flag or the variable the bad value came from.
func TestEnvTwins(t *testing.T) {
	env := map[string]string{"ROOKTEST_ONLY": "SC-1, SC-2", "ROOKTEST_STRICT": "true", "ROOKTEST_CONCURRENCY": "4"}
	o, err := readOptions(settingsOf(nil, env))
	require.NoError(t, err)
	assert.Equal(t, []string{"SC-1", "SC-2"}, o.only)
	assert.True(t, o.strict)
	assert.Equal(t, 4, o.concurrency)
	o, err = readOptions(settingsOf(map[string]string{"rook.only": "SC-3", "rook.strict": "false"}, env))
	require.NoError(t, err)
	assert.Equal(t, []string{"SC-3"}, o.only, "the flag wins")
	assert.False(t, o.strict)
	env["ROOKTEST_CONCURRENCY"] = "auto"
	o, err = readOptions(settingsOf(nil, env))
	require.NoError(t, err)
	assert.True(t, o.autoConcurrency)
	env["ROOKTEST_CONCURRENCY"] = "0"
	_, err = readOptions(settingsOf(nil, env))
	assert.EqualError(t, err, `ROOKTEST_CONCURRENCY="0": want a number of at least 1, or auto`)
	_, err = readOptions(settingsOf(map[string]string{"rook.concurrency": "x"}, env))
	assert.EqualError(t, err, `-rook.concurrency="x": want a number of at least 1, or auto`)
	env["ROOKTEST_CONCURRENCY"] = "4"
	env["ROOKTEST_STRICT"] = "maybe"
	_, err = readOptions(settingsOf(nil, env))
	assert.EqualError(t, err, `ROOKTEST_STRICT="maybe": want true or false`)
	env["ROOKTEST_STRICT"] = ""

	// A dash in a flag's name is an underscore in its twin's, which a shell can set.
	env["ROOKTEST_ALLOW_UNDECIDED"] = "1"
	env["ROOKTEST_RUN_ID"] = "ci-42"
	o, err = readOptions(settingsOf(nil, env))
	require.NoError(t, err)
	assert.True(t, o.allowUndecided)
	assert.Equal(t, "ci-42", o.runID)

	for _, tc := range []struct {
		flags, env map[string]string
		want       string
	}{
		{env: map[string]string{"ROOK_JUDGE_RETRIES": "x"}, want: `ROOK_JUDGE_RETRIES="x": want 0 or more retries`},
		{flags: map[string]string{"rook.judge-samples": "2"}, want: `-rook.judge-samples="2": want an odd number from 1 to 15, so that a majority exists`},
		{env: map[string]string{"ROOK_JUDGE_TIMEOUT": "soon"}, want: `ROOK_JUDGE_TIMEOUT="soon": want a duration such as 90s`},
		{env: map[string]string{"ROOK_JUDGE_CACHE": "maybe"}, want: `ROOK_JUDGE_CACHE="maybe": want on or off`},
		{env: map[string]string{"ROOKTEST_MIN_CONFIDENCE": "Sure"}, want: `ROOKTEST_MIN_CONFIDENCE="Sure": want High, Medium or Low`},
		{env: map[string]string{"ROOKTEST_BUDGET": "-5"}, want: `ROOKTEST_BUDGET=-5: want an amount above 0, such as 5 or $2.50`},
		{env: map[string]string{"ROOK_JUDGE_URL": "http://127.0.0.1:1"}, want: `a judge URL (http://127.0.0.1:1) needs a model: set ROOK_JUDGE_MODEL or -rook.judge-model`},
		{env: map[string]string{"ROOK_JUDGE_PANEL": "a@http://127.0.0.1:1/v1 b@http://127.0.0.1:2/v1", "ROOK_JUDGE_URL": "http://127.0.0.1:3", "ROOK_JUDGE_MODEL": "m"},
			want: `ROOK_JUDGE_PANEL names a panel of judges, and ROOK_JUDGE_URL or ROOK_JUDGE_MODEL one judge: set one or the other`},
		{env: map[string]string{"ROOK_JUDGE_PANEL": "a@http://127.0.0.1:1/v1"}, want: `ROOK_JUDGE_PANEL names 1 judge: a panel has two or more (one judge is ROOK_JUDGE_URL and ROOK_JUDGE_MODEL)`},
		{env: map[string]string{"ROOK_JUDGE_PANEL": "a@http://127.0.0.1:1/v1, http://127.0.0.1:2/v1"}, want: `ROOK_JUDGE_PANEL: member 2 ("http://127.0.0.1:2/v1") is not MODEL@URL, such as qwen3:8b@http://127.0.0.1:11434/v1`},
		{env: map[string]string{"ROOK_JUDGE_PANEL": "a@http://127.0.0.1:1/v1 b@http://127.0.0.1:2/v1", "ROOK_JUDGE_PANEL_RULE": "most"}, want: `ROOK_JUDGE_PANEL_RULE="most": want majority or unanimous`},
		{env: map[string]string{"ROOK_USER_URL": "http://127.0.0.1:1"}, want: `the simulated user's server and model go together: set ROOK_USER_URL and ROOK_USER_MODEL (or the judge's)`},
		{env: map[string]string{"ROOK_JUDGE_PANEL_RULE": "unanimous"}, want: `ROOK_JUDGE_PANEL_RULE=unanimous needs a panel: set ROOK_JUDGE_PANEL`},
		{flags: map[string]string{"rook.judge-mode": "twice"}, want: `-rook.judge-mode="twice": want one (one request) or commit (the replies withheld first)`},
	} {
		_, err := readConfig(settingsOf(tc.flags, tc.env))
		assert.EqualError(t, err, tc.want)
	}
	c, err := readConfig(settingsOf(map[string]string{"rook.judge-model": "m"}, map[string]string{"ROOK_JUDGE_URL": "http://127.0.0.1:1", "ROOK_JUDGE_MODEL": "other"}))
	require.NoError(t, err)
	assert.Equal(t, "m", c.judge.cfg.Model)
	assert.Equal(t, "http://127.0.0.1:1", c.judge.cfg.URL)
	assert.Equal(t, 3, c.judge.cfg.Retries)
	assert.Empty(t, c.judge.cfg.Mode, "one request unless asked")
	c, err = readConfig(settingsOf(nil, map[string]string{"ROOK_JUDGE_URL": "http://127.0.0.1:1", "ROOK_JUDGE_MODEL": "m", "ROOK_JUDGE_MODE": "commit"}))
	require.NoError(t, err)
	assert.Equal(t, modeljudge.ModeCommit, c.judge.cfg.Mode)
	assert.Empty(t, c.judge.user.Mode, "the simulated user's model is asked once")

	// The simulated user's model is the judge's unless ROOK_USER_* names its own.
	assert.Equal(t, "http://127.0.0.1:1", c.judge.user.URL)
	c, err = readConfig(settingsOf(nil, map[string]string{"ROOK_JUDGE_URL": "http://127.0.0.1:1", "ROOK_JUDGE_MODEL": "judge",
		"ROOK_USER_MODEL": "player", "ROOK_JUDGE_API_KEY": "judge-key-1"}))
	require.NoError(t, err)
	assert.Equal(t, modeljudge.Config{URL: "http://127.0.0.1:1", Model: "player", APIKey: "judge-key-1"},
		modeljudge.Config{URL: c.judge.user.URL, Model: c.judge.user.Model, APIKey: c.judge.user.APIKey})

	// A panel: every member with its key (its own, else the shared one), the rule.
	c, err = readConfig(settingsOf(nil, map[string]string{"ROOK_JUDGE_PANEL": "qwen3:8b@http://127.0.0.1:11434/v1,\n gpt-x@https://judge.example.test/v1",
		"ROOK_JUDGE_API_KEY": "shared-key-1", "ROOK_JUDGE_API_KEY_2": "own-key-2", "ROOK_JUDGE_PANEL_RULE": "unanimous"}))
	require.NoError(t, err)
	assert.Equal(t, []modeljudge.Member{{Model: "qwen3:8b", URL: "http://127.0.0.1:11434/v1", APIKey: "shared-key-1"},
		{Model: "gpt-x", URL: "https://judge.example.test/v1", APIKey: "own-key-2"}}, c.judge.cfg.Panel)
	assert.Equal(t, modeljudge.RuleUnanimous, c.judge.cfg.Rule)
	assert.NotNil(t, c.judge.judgeFor(t.TempDir(), nil, nil))

	// none is a run without a judge on purpose, whatever else is set.
	c, err = readConfig(settingsOf(nil, map[string]string{"ROOK_JUDGE_URL": "none", "ROOK_JUDGE_MODEL": "m"}))
	require.NoError(t, err)
	assert.True(t, c.judge.none)
	assert.Empty(t, c.judge.cfg.URL)
	assert.Nil(t, c.judge.judgeFor(t.TempDir(), nil, nil))
}

func TestRunIDFlag(t *testing.T) {
	for id, want := range map[string]string{
		"gh-1234-1":  "",
		"2026.12.03": "",
		"latest":     `ROOKTEST_RUN_ID: "latest" cannot name a run`,
		"../x":       `ROOKTEST_RUN_ID: "../x" cannot name a run`,
		"-x":         `ROOKTEST_RUN_ID: "-x" cannot name a run`,
		"a b":        `ROOKTEST_RUN_ID: "a b" cannot name a run`,
	} {
		_, err := readOptions(settingsOf(nil, map[string]string{"ROOKTEST_RUN_ID": id}))
		if want == "" {
			assert.NoError(t, err, id)
		} else if assert.Error(t, err, id) {
			assert.Contains(t, err.Error(), want)
		}
	}
	_, err := readOptions(settingsOf(map[string]string{"rook.run-id": "../x"}, nil))
	assert.ErrorContains(t, err, `-rook.run-id: "../x" cannot name a run`)
	_, err = readOptions(settingsOf(nil, map[string]string{"ROOKTEST_RUN_ID": "ci-42", "ROOKTEST_RUN": "2026-12-03T10-00-00Z"}))
	assert.EqualError(t, err, "-rook.run-id=ci-42 names a new run; -rook.run=2026-12-03T10-00-00Z continues one: give one of them")
}

func TestUnknownOnly(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "scenarios", "billing"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "scenarios", "billing", "SC-777.yaml"), []byte("id: SC-777\ngoal: g\n"), 0o644))
	s := Suite{Agent: "helpdesk", Scenarios: []Scenario{{ID: "SC-001"}, {ID: "SC-002"}}}
	assert.NoError(t, unknownOnly(root, []string{"SC-001"}, s))
	assert.NoError(t, unknownOnly(root, []string{"SC-777"}, s), "another agent's scenario is its package's to run")
	err := unknownOnly(root, []string{"sc-001", "SC-999", "SC-002"}, s)
	require.Error(t, err)
	assert.Equal(t, "-rook.only names sc-001, which is no scenario of agent helpdesk or of any agent under scenarios/; did you mean SC-001?\n"+
		"-rook.only names SC-999, which is no scenario of agent helpdesk or of any agent under scenarios/ (agent helpdesk's scenarios: SC-001, SC-002)", err.Error())
}
