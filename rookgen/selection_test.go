package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// junitCases reads a JUnit file's testcases: name to "pass", "fail" or "skip".
func junitCases(t *testing.T, data []byte) map[string]string {
	t.Helper()
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc), "%s", data)
	out := map[string]string{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			switch {
			case c.Failure != nil:
				out[c.Name] = "fail"
			case c.Skipped != nil:
				out[c.Name] = "skip"
			default:
				out[c.Name] = "pass"
			}
		}
	}
	return out
}

// In every selection, go test's exit code, gotestsum's JUnit and report.yaml say the
// same: the run plans exactly the scenarios go test runs (testing's own matcher, top-level
// alternatives and -skip included), and counts nothing it did not run.
func TestSelectionsAgree(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated test binary")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\"}\nconcurrency: 2\n", os.Args[0]))
	for _, id := range []string{"SC-1", "SC-3"} {
		helloScenario(t, dir, id)
	}
	for _, id := range []string{"SC-2", "SC-4"} {
		write(t, dir, "scenarios/fake/"+id+".yaml", "id: "+id+"\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: goodbye}}\n")
	}
	rookgen(t, dir)
	bin := testBinary(t, dir, "fake")
	gotestsumBin, err := exec.Command("go", "tool", "-n", "gotestsum").Output()
	require.NoError(t, err)

	tests := []struct {
		run, skip string
		ran       []string // the scenarios go test runs
	}{
		{"", "", []string{"SC-1", "SC-2", "SC-3", "SC-4"}},
		{"TestFake", "", []string{"SC-1", "SC-2", "SC-3", "SC-4"}},
		{"TestFake/SC-1", "", []string{"SC-1"}},
		{"TestFake/SC-1|SC-3", "", []string{"SC-1"}}, // SC-3 is an alternative of the test's name
		{"TestFake/(SC-1|SC-3)", "", []string{"SC-1", "SC-3"}},
		{"TestFake/SC-1|TestFake/SC-2", "", []string{"SC-1", "SC-2"}},
		{"TestNothing|TestFake/SC-4", "", []string{"SC-4"}},
		{"TestFake/SC-[12]$", "", []string{"SC-1", "SC-2"}},
		{"TestFake/SC-2/C1|TestFake/SC-3", "", []string{"SC-2", "SC-3"}},
		{"TestFake/SC-1/C1", "", []string{"SC-1"}},
		{"Test.*/SC-[34]", "", []string{"SC-3", "SC-4"}},
		{"", "TestFake/SC-2", []string{"SC-1", "SC-3", "SC-4"}},
		{"TestFake", "TestFake/SC-1|TestFake/SC-4", []string{"SC-2", "SC-3"}},
		{"TestFake", "TestFake/SC-1/C1", []string{"SC-1", "SC-2", "SC-3", "SC-4"}}, // a partial skip runs the scenario
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("run=%s,skip=%s", tc.run, tc.skip), func(t *testing.T) {
			records := t.TempDir()
			junitFile := filepath.Join(t.TempDir(), "junit.xml")
			args := []string{"--junitfile", junitFile, "--format", "standard-quiet", "--raw-command", "--",
				"go", "tool", "test2json", "-t", "-p", "example.com/agents/scenarios/fake", bin, "-test.v=test2json",
				"-rook.dir=" + records, "-test.run=" + tc.run, "-test.skip=" + tc.skip}
			cmd := exec.Command(strings.TrimSpace(string(gotestsumBin)), args...)
			cmd.Dir = filepath.Join(dir, "scenarios", "fake")
			out, runErr := cmd.CombinedOutput()
			data, err := os.ReadFile(junitFile)
			require.NoError(t, err, "%s", out)
			cases := junitCases(t, data)

			var passed, failed []string
			for _, id := range []string{"SC-1", "SC-2", "SC-3", "SC-4"} {
				for name, action := range cases {
					if strings.HasPrefix(name, "TestFake/"+id+"_") && !strings.Contains(strings.TrimPrefix(name, "TestFake/"), "/") ||
						name == "TestFake/"+id {
						switch action {
						case "pass":
							passed = append(passed, id)
						case "fail":
							failed = append(failed, id)
						}
					}
				}
			}
			assert.ElementsMatch(t, tc.ran, append(append([]string{}, passed...), failed...), "JUnit's scenarios:\n%s", out)

			reports, err := filepath.Glob(filepath.Join(records, "fake", "*", "report.yaml"))
			require.NoError(t, err)
			require.Len(t, reports, 1, "%s", out)
			totals := readYAMLFile(t, reports[0])["totals"].(map[string]any)
			assert.Equal(t, len(tc.ran), totals["planned"], "report.yaml plans what go test ran")
			assert.Equal(t, len(tc.ran), totals["executed"])
			assert.Equal(t, len(passed), totals["passed"], "report.yaml and JUnit agree on what passed")
			assert.Equal(t, len(failed), totals["failed"], "report.yaml and JUnit agree on what failed")
			assert.Equal(t, len(failed) > 0, runErr != nil, "the exit code agrees: %v\n%s", runErr, out)
		})
	}
}

// go test ./scenarios/... with a selection flag (or its ROOKTEST_* twin, as an IDE sets
// it): a package whose scenarios the selection leaves out skips, saying which agent's it
// selects; a selection that names nothing in any agent fails, saying so.
func TestSelectionAcrossAgentPackages(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	if testing.Short() {
		t.Skip("builds and runs generated packages")
	}
	dir := newModule(t)
	for _, agent := range []string{"alpha", "beta"} {
		write(t, dir, "profiles/"+agent+"/"+agent+".yaml", fmt.Sprintf("id: %s\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\"}\n", agent, os.Args[0]))
	}
	write(t, dir, "scenarios/alpha/SC-A1.yaml", "id: SC-A1\ntags: [smoke]\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n")
	write(t, dir, "scenarios/beta/SC-B1.yaml", "id: SC-B1\ntags: [slow]\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n")
	rookgen(t, dir)
	records := "-rook.dir=" + t.TempDir()

	for _, sel := range []struct{ flag, env string }{
		{"-rook.tag=smoke", ""}, {"", "ROOKTEST_TAG=smoke"}, {"-rook.only=SC-A1", ""},
	} {
		args := []string{"./scenarios/...", records}
		if sel.flag != "" {
			args = append(args, sel.flag)
		}
		res, err := goTest(t, dir, []string{goflags, sel.env}, args...)
		require.NoError(t, err, "%v: a package with nothing selected skips:\n%s", sel, res.all)
		assert.Equal(t, "pass", res.action["TestAlpha/SC-A1"], "%v", sel)
		assert.Equal(t, "skip", res.action["TestBeta"], "%v", sel)
		assert.Contains(t, res.output["TestBeta"], "selects none of agent beta's 1 scenario(s); it selects 1 of agent alpha, whose packages run them")
	}

	res, err := goTest(t, dir, []string{goflags}, "./scenarios/...", records, "-rook.tag=nothing")
	require.Error(t, err, "a selection that names nothing anywhere fails")
	assert.Equal(t, "fail", res.action["TestAlpha"])
	assert.Equal(t, "fail", res.action["TestBeta"])
	assert.Contains(t, res.output["TestBeta"], "-rook.tag=nothing selects no scenario of any agent under scenarios/ (alpha, beta); its tags: slow")
}

// A hook that prints a near miss of the contract (tool_calls for calls, a bare
// prompt_tokens for usage) leaves checks Unable to Verify: go test says so without -v,
// and -rook.strict fails on it.
func TestNearMissesAreSaidWithoutVerbose(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  execute: {command: [%[1]q]}
  close: {command: [%[1]q]}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_EXECUTE: 'json:{"output": "hello", "tool_calls": [{"name": "lookup"}], "prompt_tokens": 12}'
  FAKEHOOK_CLOSE: "exit:3:the session was already gone"
capabilities: {calls: true, usage: true}
`, os.Args[0]))
	write(t, dir, "scenarios/fake/SC-1.yaml", "id: SC-1\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n  - {statement: c, check: called, params: {name: lookup}}\n")
	rookgen(t, dir)
	out, err := goTestInPackage(t, dir, "fake")
	require.NoError(t, err, out)
	assert.Contains(t, out, `TestFake/SC-1: rooktest: warning: SC-1: C2 Unable to Verify (not_observable), and its hooks printed a near miss of the hook contract: `)
	assert.Contains(t, out, `execute turn 1: "tool_calls" is not read: the hook contract's key is "calls"`)
	assert.Contains(t, out, `TestFake: rooktest: warning: profile fake declares capabilities.usage: true, but no hook reported usage in this run`)
	assert.Contains(t, out, `the hooks printed a near miss: "prompt_tokens" is not read: the hook contract's key is "usage"`)
	assert.Contains(t, out, "TestFake/SC-1: reported; the answer is kept and the scenario is judged: close hook failed", "a close hook that broke the contract is said too")

	out, err = goTestInPackage(t, dir, "fake", "-rook.strict")
	require.Error(t, err, out)
	assert.Contains(t, out, "[failing under -rook.strict]")
}

// What generation let stand under -lenient (a key that reads like a misspelt one), and a
// profile of the agent with no generated test yet, are said by the agent's tests while they
// stand, without -v; -rook.strict fails on them.
func TestGenerationWarningsAreRepeatedAtRunTime(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	profile := fmt.Sprintf("hooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\"}\n", os.Args[0])
	write(t, dir, "profiles/fake/fake.yaml", "id: fake\n"+profile)
	write(t, dir, "scenarios/fake/SC-1.yaml", "id: SC-1\ngoal: hello\nforbidden_text: [goodbye]\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-root", dir, "-lenient"}, &stdout, &stderr), stderr.String())
	write(t, dir, "profiles/fake/staging.yaml", "id: staging\n"+profile)

	out, err := goTestInPackage(t, dir, "fake")
	require.NoError(t, err, out)
	assert.Contains(t, out, `TestFake: rooktest: warning: scenarios/fake/SC-1.yaml:3:1: unknown key "forbidden_text" in scenario is kept in the snapshot but read by nothing; did you mean "forbidden"?`)
	assert.Contains(t, out, "TestFake: rooktest: warning: profiles/fake/staging.yaml has no generated test yet (go test runs nothing for it)")
	out, err = goTestInPackage(t, dir, "fake", "-rook.strict")
	require.Error(t, err, out)
	assert.Contains(t, out, `did you mean "forbidden"? [failing under -rook.strict]`)
}

// An env entry with no secret: key whose name reads as a setting is a setting; but a value
// that looks like a credential is redacted all the same, every such entry is named at the
// start of a run, and rookgen check names it (an error under -strict).
func TestUndeclaredEntriesFailClosed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	t.Parallel() // waits on hooks and builds more than it computes
	const leaked = "sk-live-4f9a2b7c1d8e"
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  execute: {command: [%q]}
env:
  - {variable: SEC_A, purpose: the agent's access}
  - {variable: AGENT_URL, purpose: where the agent listens}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_EXECUTE: "reply:using $SEC_A at $AGENT_URL"
`, os.Args[0]))
	helloScenario(t, dir, "SC-1")
	write(t, dir, "scenarios/fake/SC-1.yaml", "id: SC-1\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: using}}\n")
	rookgen(t, dir)
	records := t.TempDir()
	res, err := goTest(t, dir, []string{goflags, "SEC_A=" + leaked, "AGENT_URL=http://127.0.0.1:8080/agent/v1"},
		"./scenarios/fake", "-v", "-rook.dir="+records)
	require.NoError(t, err, res.all)
	assert.Contains(t, res.all, "SEC_A has no secret: key; its value reads as a credential, so it is redacted")
	assert.Equal(t, 1, strings.Count(res.all, "SEC_A has no secret: key"), "said once")
	assert.Contains(t, res.all, "rooktest: settings (env entries with no secret: key, not named as credentials), never redacted unless a value reads as a credential: AGENT_URL")
	assert.Contains(t, res.all, "using [redacted:SEC_A] at http://127.0.0.1:8080/agent/v1", "a URL setting stays as it is")
	assert.NotContains(t, res.all, leaked)
	assertNoFileHolds(t, records, leaked)

	// rookgen check: where a leak is possible (the value in the environment reads as a
	// credential) it warns, and -strict fails; settings are named with -v only, and a
	// profile of settings alone (as Rook's are) passes -strict.
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run([]string{"check", "-strict", "-root", dir}, &stdout, &stderr), "settings alone: %s", stderr.String())
	assert.Empty(t, stderr.String())
	assert.NotContains(t, stdout.String(), "AGENT_URL")
	stdout.Reset()
	assert.Equal(t, 0, run([]string{"check", "-v", "-root", dir}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "profiles/fake/fake.yaml: SEC_A, AGENT_URL: settings (no secret: key, a name that is not a credential's)")
}

// rookgen check -strict fails where a leak is possible: an env entry with no secret: key
// whose name, or whose value in the environment, reads as a credential. A profile of
// settings alone, as Rook's banking profiles are, passes.
func TestCheckStrictNamesPossibleLeaks(t *testing.T) {
	dir := newModule(t)
	write(t, dir, "profiles/bank/demo.yaml", "id: demo\nhooks:\n  execute: scripts/h.mjs\nenv:\n  - variable: DEMO_BASE_URL\n  - variable: DEMO_ENGINE\n  - variable: DEMO_VARIANT\n")
	write(t, dir, "profiles/bank/scripts/h.mjs", "")
	write(t, dir, "scenarios/bank/SC-1.yaml", "id: SC-1\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hi}}\n")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"check", "-strict", "-root", dir}, &stdout, &stderr), "Rook's settings: %s", stderr.String())

	t.Setenv("DEMO_ENGINE", "sk-live-4f9a2b7c1d8e")
	assert.Equal(t, 0, run([]string{"check", "-root", dir}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "profiles/bank/demo.yaml: DEMO_ENGINE has no secret: key; its value reads as a credential, so it is redacted")
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"check", "-strict", "-root", dir}, &stdout, &stderr), "an error under -strict")

	t.Setenv("DEMO_ENGINE", "model")
	write(t, dir, "profiles/bank/demo.yaml", "id: demo\nhooks:\n  execute: scripts/h.mjs\nenv:\n  - variable: DEMO_BASE_URL\n  - variable: DEMO_API_TOKEN\n")
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"check", "-strict", "-root", dir}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "DEMO_API_TOKEN has no secret: key; its name reads as a credential, so it is treated as a secret")
	assert.NotContains(t, stderr.String(), "DEMO_BASE_URL")
}

// goTestInPackage runs go test in local directory mode in agent's package (as a person in
// its folder would: the test binary's stderr is shown without -v), with fresh records.
func goTestInPackage(t *testing.T, dir, agent string, args ...string) (string, error) {
	t.Helper()
	return goTestInPackageEnv(t, dir, agent, nil, args...)
}

// goTestInPackageEnv is goTestInPackage with env added to the test's environment.
func goTestInPackageEnv(t *testing.T, dir, agent string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"test", "-count=1", "-rook.dir=" + t.TempDir()}, args...)...)
	cmd.Dir = filepath.Join(dir, "scenarios", agent)
	cmd.Env = append(append(os.Environ(), goflags), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
