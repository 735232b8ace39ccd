package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakehook"

	// The generated packages these tests build and run call rooktest; importing it makes
	// go test's cache rerun them when rooktest changes.
	_ "github.com/rookgo/rookgo/rooktest"
)

func TestMain(m *testing.M) {
	fakehook.Main()
	os.Exit(m.Run())
}

// event is one line of go test -json.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

type results struct {
	action map[string]string
	output map[string]string
	all    string
	// json is the go test -json stream as it was read.
	json string
}

func goTest(t *testing.T, dir string, env []string, args ...string) (results, error) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return parseEvents(&stdout, stderr.String()), err
}

// parseEvents reads go test -json output.
func parseEvents(stdout io.Reader, stderr string) results {
	r := results{action: map[string]string{}, output: map[string]string{}}
	var stream strings.Builder
	stdout = io.TeeReader(stdout, &stream)
	var all strings.Builder
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			all.WriteString(sc.Text() + "\n")
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
			if e.Test != "" {
				r.action[e.Test] = e.Action
			}
		case "output":
			r.output[e.Test] += e.Output
			all.WriteString(e.Output)
		}
	}
	all.WriteString(stderr)
	r.all, r.json = all.String(), stream.String()
	return r
}

// newModule makes a module outside this repository that uses it, as a user's would.
func newModule(t testing.TB) string {
	t.Helper()
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	dir := t.TempDir()
	gomod := fmt.Sprintf("module example.com/agents\n\ngo 1.26\n\nrequire github.com/rookgo/rookgo v0.0.0\n\nreplace github.com/rookgo/rookgo => %s\n", repo)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	return dir
}

// linkPage makes agent's test binary write report.html at the end of every run, as a
// user's hand-written file does (rooktest/page).
func linkPage(t testing.TB, dir, agent string) {
	t.Helper()
	write(t, dir, "scenarios/"+agent+"/page_test.go", "package "+agent+"_test\n\nimport _ \"github.com/rookgo/rookgo/rooktest/page\"\n")
}

// helloScenario writes scenario id of agent fake: its goal is hello, and its one
// criterion wants hello in the reply (the fake execute hook echoes the goal).
func helloScenario(t *testing.T, dir, id string) {
	t.Helper()
	write(t, dir, "scenarios/fake/"+id+".yaml", "id: "+id+"\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n")
}

// rookgen runs the generator over the module at dir.
func rookgen(t testing.TB, dir string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-root", dir}, &stdout, &stderr), stderr.String())
}

func write(t testing.TB, root, path, body string) {
	t.Helper()
	full := filepath.Join(root, path)
	require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
	require.NoError(t, os.WriteFile(full, []byte(body), 0o644))
}

// TestEndToEnd generates a package from YAML in a fresh module, compiles it against
// rooktest and runs it with go test, with this test binary as every hook.
func TestEndToEnd(t *testing.T) {
	t.Parallel() // waits on builds and hooks more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	hookLog := filepath.Join(t.TempDir(), "calls.jsonl")
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  prepare: {command: [%[1]q]}
  open: {command: [%[1]q]}
  execute: {command: [%[1]q], timeout_seconds: 1}
  close: {command: [%[1]q]}
  collect: {command: [%[1]q]}
env:
  - {variable: FAKE_TOKEN, purpose: Signs the fake agent's requests}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_LOG: %[2]q
  FAKEHOOK_PIDFILE: %[3]q
  FAKEHOOK_STDERR: "using token $FAKE_TOKEN"
  FAKEHOOK_EXECUTE_SC_EXIT: "exit:3:upstream agent returned 503"
  FAKEHOOK_EXECUTE_SC_HANG: "hang-child"
  FAKEHOOK_EXECUTE_SC_GARBAGE: "json:<html>502 Bad Gateway</html>"
capabilities: {multi_turn: true, calls: true, usage: true}
`, os.Args[0], hookLog, pidfile))
	criteria := "acceptance_criteria:\n  - {statement: Greets back., check: contains, params: {text: hello}}\n"
	write(t, dir, "scenarios/fake/SC-OK.yaml", "id: SC-OK\ntitle: Says hello\ngoal: hello there\n"+criteria+
		"  - {statement: Never says hello., check: not_contains, params: {text: hello}}\n  - {statement: Is kind., check: llm_judge}\n")
	for _, id := range []string{"SC-EXIT", "SC-HANG", "SC-GARBAGE", "SC-LAST"} {
		write(t, dir, "scenarios/fake/"+id+".yaml", "id: "+id+"\ngoal: hello\n"+criteria)
	}
	write(t, dir, "scenarios/fake/SC-REP.yaml", "id: SC-REP\ngoal: hello\nrepeat: 2\n"+criteria)

	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-root", dir}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "wrote scenarios/fake/fake_rook_test.go")
	require.Equal(t, 0, run([]string{"-root", dir, "-check"}, &stdout, &stderr), "fresh output is not stale: %s", stderr.String())

	records := filepath.Join(t.TempDir(), "records")
	env := []string{"FAKE_TOKEN=tok-very-secret-42", goflags}
	res, err := goTest(t, dir, env, "./scenarios/...", "-rook.dir="+records)
	require.Error(t, err, "the run has failing scenarios")
	a := res.action
	assert.Equal(t, "fail", a["TestFake"], res.all)
	assert.Equal(t, "pass", a["TestFake/SC-OK_says_hello/C1_contains_hello"])
	assert.Equal(t, "fail", a["TestFake/SC-OK_says_hello/C2_not_contains_hello"])
	assert.Equal(t, "skip", a["TestFake/SC-OK_says_hello/C3_llm_judge_is_kind"])
	assert.Equal(t, "pass", a["TestFake/SC-LAST/C1_contains_hello"], "the run goes on after failing hooks")
	assert.Equal(t, "pass", a["TestFake/SC-REP/attempt_1/C1_contains_hello"], "a repeated scenario shows its attempts")
	assert.Equal(t, "pass", a["TestFake/SC-REP/attempt_2/C1_contains_hello"])
	assert.Contains(t, res.output["TestFake/SC-REP"], "pass^2: 2 of 2 attempts passed")
	firstRun := runIDFrom(t, res.output["TestFake"])
	for _, id := range []string{"SC-EXIT", "SC-HANG", "SC-GARBAGE"} {
		assert.Equal(t, "fail", a["TestFake/"+id], id)
		assert.Equal(t, "skip", a["TestFake/"+id+"/C1_contains_hello"], "%s: an agent that never replied is Unable to Verify", id)
	}

	fail := res.output["TestFake/SC-OK_says_hello/C2_not_contains_hello"]
	assert.Contains(t, fail, `Fail: expected the reply does not contain "hello"`)
	assert.Contains(t, fail, `achieved:   the reply contains "hello"`)
	assert.Contains(t, fail, `evidence:   "echo: hello there"`)
	assert.Contains(t, res.output["TestFake/SC-OK_says_hello/C3_llm_judge_is_kind"], "Unable to Verify (undecidable): no judge model configured")

	exit := res.output["TestFake/SC-EXIT"]
	assert.Contains(t, exit, "execute hook failed (turn 1, scenario SC-EXIT, ")
	assert.Contains(t, exit, "exited with status 3")
	assert.Contains(t, exit, "upstream agent returned 503", "stderr is in the failing test's output")
	assert.Contains(t, res.output["TestFake/SC-HANG"], "timed out after 1s; its process group was killed")
	assert.Contains(t, res.output["TestFake/SC-GARBAGE"], `stdout is not JSON`)
	assert.Contains(t, res.output["TestFake/SC-GARBAGE"], `"<html>502 Bad Gateway</html>"`)
	assert.NotContains(t, res.all, "tok-very-secret-42", "declared env values are redacted from the test output")
	assert.Contains(t, res.all, "using token [redacted:FAKE_TOKEN]")

	calls, err := fakehook.ReadLog(hookLog)
	require.NoError(t, err)
	prepares := 0
	for _, c := range calls {
		if c.Phase == "prepare" {
			prepares++
		}
	}
	assert.Equal(t, 1, prepares, "prepare runs once per run")

	// A plain go test runs the agents again instead of replaying a cached result.
	res2, _ := goTest(t, dir, env, "./scenarios/...", "-rook.dir="+records)
	assert.NotContains(t, res2.all, "(cached)")
	calls2, err := fakehook.ReadLog(hookLog)
	require.NoError(t, err)
	assert.Greater(t, len(calls2), len(calls), "the second go test called the hooks again")

	// Selection: only one scenario runs; the others are skipped with the reason.
	res3, err := goTest(t, dir, env, "./scenarios/...", "-rook.dir="+records, "-rook.only=SC-LAST")
	require.NoError(t, err, res3.all)
	assert.Equal(t, "skip", res3.action["TestFake/SC-OK_says_hello"])
	assert.Contains(t, res3.output["TestFake/SC-OK_says_hello"], "not selected: not named by -rook.only")
	assert.Equal(t, "pass", res3.action["TestFake/SC-LAST"])

	// A missing declared variable stops the run before any hook, naming it and its purpose.
	before, _ := fakehook.ReadLog(hookLog)
	res4, err := goTest(t, dir, []string{goflags, "FAKE_TOKEN="}, "./scenarios/...", "-rook.dir="+records)
	require.Error(t, err)
	assert.Contains(t, res4.output["TestFake"], "profile fake needs environment variables that are not set (or empty): FAKE_TOKEN (Signs the fake agent's requests)")
	after, _ := fakehook.ReadLog(hookLog)
	assert.Equal(t, len(before), len(after), "no hook ran")

	// Editing a scenario after generating never runs stale data.
	write(t, dir, "scenarios/fake/SC-LAST.yaml", "id: SC-LAST\ngoal: goodbye\n"+criteria)
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"-root", dir, "-check"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "scenarios/fake/scenarios_rook_test.go is stale")
	assert.NotContains(t, stderr.String(), "scenarios/fake/fake_rook_test.go", "a scenario edit changes one generated file: the scenarios'")
	res5, err := goTest(t, dir, env, "./scenarios/...", "-rook.dir="+records)
	require.Error(t, err)
	assert.Contains(t, res5.output["TestFake"], "scenarios/fake/SC-LAST.yaml changed after the test was generated")
	assert.Contains(t, res5.output["TestFake"], "run go generate ./...")

	// A new run resuming from the first carries the unchanged scenarios forward and runs the
	// edited one.
	stdout.Reset()
	require.Equal(t, 0, run([]string{"-root", dir}, &stdout, &stderr))
	before, _ = fakehook.ReadLog(hookLog)
	res6, _ := goTest(t, dir, env, "./scenarios/...", "-rook.dir="+records, "-rook.resume="+firstRun)
	assert.Contains(t, res6.output["TestFake/SC-OK_says_hello"], "carried forward from run "+firstRun)
	assert.Equal(t, "fail", res6.action["TestFake/SC-OK_says_hello/C2_not_contains_hello"], "a carried Fail is still a Fail")
	assert.NotContains(t, res6.output["TestFake/SC-LAST"], "carried forward")
	assert.Equal(t, "fail", res6.action["TestFake/SC-LAST/C1_contains_hello"], "the edited scenario ran (its goal is now goodbye): %s", res6.output["TestFake/SC-LAST"])
	after, _ = fakehook.ReadLog(hookLog)
	var ran []string
	for _, c := range after[len(before):] {
		if c.Phase == "execute" {
			ran = append(ran, c.Env["ROOK_SCENARIO_ID"])
		}
	}
	assert.Equal(t, []string{"SC-LAST"}, ran, "only the edited scenario called the agent")
	assert.Contains(t, res6.output["TestFake"], "5 carried forward of 6 planned")

	// A profile that is gone takes its generated file with it.
	require.NoError(t, os.Remove(filepath.Join(dir, "profiles/fake/fake.yaml")))
	stdout.Reset()
	require.Equal(t, 0, run([]string{"-root", dir}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "deleted scenarios/fake/fake_rook_test.go")
	assert.NoFileExists(t, filepath.Join(dir, "scenarios/fake/fake_rook_test.go"))
}

func runIDFrom(t *testing.T, out string) string {
	t.Helper()
	_, rest, ok := strings.Cut(out, "rook run ")
	require.True(t, ok, "no run id in %q", out)
	id, _, _ := strings.Cut(rest, " ")
	return id
}

// TestRepositoryIsUpToDate is rookgen -check on this repository.
func TestRepositoryIsUpToDate(t *testing.T) {
	changes, warnings, err := plan("..", false)
	require.NoError(t, err)
	for _, c := range changes {
		t.Errorf("%s is stale (%s); run go generate ./...", c.path, c.what)
	}
	assert.Empty(t, warnings, "the repository's own files draw no warning")
}

// TestLintWarnsAboutIgnoredInput: what rookgen would otherwise ignore without a word is a
// warning, and an error under -strict.
func TestLintWarnsAboutIgnoredInput(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "profiles/a/p.yaml", "id: p\nhooks: {execute: hook.mjs}\n")
	write(t, dir, "profiles/a/hook.mjs", "")
	write(t, dir, "profiles/a/q.yml", "id: q\n")
	write(t, dir, "scenarios/a/SC-1.yaml", "id: SC-1\ngoal: g\nforbidden_text: [Paris]\n")
	write(t, dir, "scenarios/SC-9.yaml", "id: SC-9\ngoal: g\n")
	write(t, dir, "scenarios/b/SC-2.yaml", "id: SC-2\ngoal: g\n")
	var stdout, stderr bytes.Buffer
	// A key that reads like a misspelt one is an error; -lenient keeps it a warning.
	require.Equal(t, 1, run([]string{"-root", dir}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), `rookgen: scenarios/a/SC-1.yaml:3:1: unknown key "forbidden_text" in scenario is kept in the snapshot but read by nothing; did you mean "forbidden"?`)
	assert.Contains(t, stderr.String(), "run with -lenient to keep it as a warning")
	assert.NoFileExists(t, filepath.Join(dir, "scenarios/a/p_rook_test.go"))
	stderr.Reset()
	require.Equal(t, 1, run([]string{"check", "-root", dir}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), `did you mean "forbidden"?`)
	stderr.Reset()
	require.Equal(t, 0, run([]string{"-root", dir, "-lenient"}, &stdout, &stderr), stderr.String())
	for _, w := range []string{
		`warning: scenarios/a/SC-1.yaml:3:1: unknown key "forbidden_text" in scenario is kept in the snapshot but read by nothing; did you mean "forbidden"?`,
		"warning: profiles/a/q.yml is ignored: rookgen reads .yaml files; rename it to q.yaml",
		"warning: scenarios/SC-9.yaml is ignored: a scenario goes in scenarios/<agent>/",
		"warning: scenarios/b has scenarios but profiles/b has no profile: they are not run",
	} {
		assert.Contains(t, stderr.String(), w)
	}
	stderr.Reset()
	require.Equal(t, 1, run([]string{"-root", dir, "-lenient", "-strict"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "-strict: fix the files above")
}

// TestConcurrencyStrictAndUnrunnable runs latency-bound hooks with concurrency 3 under
// -parallel 1, and a scenario the profile cannot run, with and without -rook.strict.
func TestConcurrencyStrictAndUnrunnable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	hookLog := filepath.Join(t.TempDir(), "calls.jsonl")
	write(t, dir, "profiles/slow/slow.yaml", fmt.Sprintf(`id: slow
hooks:
  execute: {command: [%[1]q]}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_LOG: %[2]q
  FAKEHOOK_EXECUTE: "meet:3"
  FAKEHOOK_MEET: %[3]q
capabilities: {multi_turn: false, calls: true, usage: false}
concurrency: 3
`, os.Args[0], hookLog, t.TempDir()))
	for _, id := range []string{"SC-1", "SC-2", "SC-3"} {
		write(t, dir, "scenarios/slow/"+id+".yaml", "id: "+id+"\ngoal: hi\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hi}}\n")
	}
	write(t, dir, "scenarios/slow/SC-TOKENS.yaml", "id: SC-TOKENS\ngoal: hi\nacceptance_criteria:\n  - {statement: s, check: usage, params: {total_max: 10}}\n")
	write(t, dir, "scenarios/slow/SC-TURNS.yaml", "id: SC-TURNS\ngoal: hi\nsetup_messages: [hello]\n")
	write(t, dir, "profiles/prep/prep.yaml", fmt.Sprintf(`id: prep
hooks:
  prepare: {command: [%[1]q]}
  execute: {command: [%[1]q]}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_LOG: %[2]q
  FAKEHOOK_PREPARE: "exit:7:cannot mint a token: login refused"
`, os.Args[0], hookLog+".prep"))
	write(t, dir, "profiles/halt/halt.yaml", fmt.Sprintf(`id: halt
hooks:
  execute: {command: [%[1]q]}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_EXECUTE: "exit:1:connection refused"
`, os.Args[0]))
	for _, id := range []string{"SC-1", "SC-2", "SC-3", "SC-4"} {
		write(t, dir, "scenarios/halt/"+id+".yaml", "id: "+id+"\ngoal: hi\n")
	}
	write(t, dir, "scenarios/prep/SC-1.yaml", "id: SC-1\ngoal: hi\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hi}}\n")
	rookgen(t, dir)

	env := []string{goflags}
	records := filepath.Join(t.TempDir(), "records")
	res, err := goTest(t, dir, env, "./scenarios/slow", "-parallel=1", "-rook.dir="+records)
	require.NoError(t, err, res.all)
	assert.Equal(t, "skip", res.action["TestSlow/SC-TOKENS"])
	assert.Contains(t, res.output["TestSlow/SC-TOKENS"], "unrunnable: it grades token usage and slow's hooks report none")
	assert.Contains(t, res.output["TestSlow/SC-TURNS"], "unrunnable: it takes 2 turns and slow's hooks keep no conversation")

	calls, err := fakehook.ReadLog(hookLog)
	require.NoError(t, err)
	require.Len(t, calls, 3, "unrunnable scenarios never reach a hook")
	// Each execute waits until all three are alive (fakehook's meet), and each passed: all
	// three were in flight at once, whatever -parallel says.
	for _, id := range []string{"SC-1", "SC-2", "SC-3"} {
		assert.Equal(t, "pass", res.action["TestSlow/"+id], "the three executes met: %v", calls)
	}

	res, err = goTest(t, dir, env, "./scenarios/slow", "-rook.strict", "-rook.only=SC-TOKENS", "-rook.dir="+records)
	require.Error(t, err)
	assert.Equal(t, "fail", res.action["TestSlow/SC-TOKENS"])
	assert.Contains(t, res.output["TestSlow/SC-TOKENS"], "unrunnable (failing under -rook.strict)")

	// A failed prepare fails the profile's test with its diagnosis; no scenario runs.
	res, err = goTest(t, dir, env, "./scenarios/prep", "-rook.dir="+records)
	require.Error(t, err)
	assert.Equal(t, "fail", res.action["TestPrep"])
	assert.Contains(t, res.output["TestPrep"], "prepare hook failed")
	assert.Contains(t, res.output["TestPrep"], "exit:     7")
	assert.Contains(t, res.output["TestPrep"], "cannot mint a token: login refused")
	assert.Equal(t, "skip", res.action["TestPrep/SC-1"])
	assert.Contains(t, res.output["TestPrep/SC-1"], "not run: prepare failed")
	prepCalls, err := fakehook.ReadLog(hookLog + ".prep")
	require.NoError(t, err)
	assert.Equal(t, []string{"prepare"}, []string{prepCalls[0].Phase})
	assert.Len(t, prepCalls, 1, "execute never ran")

	// Three execute transport failures in a row halt the run; what is left is not run.
	res, err = goTest(t, dir, env, "./scenarios/halt", "-rook.dir="+records)
	require.Error(t, err)
	assert.Contains(t, res.output["TestHalt"], "halted: 3 execute failures of the transport kind in a row")
	assert.Contains(t, res.output["TestHalt"], `(stderr: "connection refused")`)
	assert.Equal(t, "fail", res.action["TestHalt/SC-3"])
	assert.Equal(t, "skip", res.action["TestHalt/SC-4"])
	assert.Contains(t, res.output["TestHalt/SC-4"], "not run: the run halted")
}

// TestMigratesOldFileNames replaces the rook_<profile>_test.go files of earlier versions,
// and leaves a hand-written file of that shape alone.
func TestMigratesOldFileNames(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "profiles/a/eu-arm64.yaml", "id: eu-arm64\nhooks: {execute: hook.mjs}\n")
	write(t, dir, "profiles/a/hook.mjs", "")
	write(t, dir, "scenarios/a/SC-1.yaml", "id: SC-1\ngoal: g\n")
	write(t, dir, "scenarios/a/rook_eu_arm64_test.go", "// Code generated by rookgen from old; DO NOT EDIT.\n\npackage a_test\n")
	write(t, dir, "scenarios/a/rook_helpers_test.go", "package a_test\n")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 1, run([]string{"-root", dir, "-check"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "scenarios/a/rook_eu_arm64_test.go is stale (an earlier rookgen's name")
	assert.Contains(t, stderr.String(), "run go generate ./... (or go run github.com/rookgo/rookgo/rookgen)", "a command that exists in the user's module")
	require.Equal(t, 0, run([]string{"-root", dir}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "deleted scenarios/a/rook_eu_arm64_test.go")
	assert.Contains(t, stdout.String(), "wrote scenarios/a/eu_arm64_rook_test.go")
	assert.NoFileExists(t, filepath.Join(dir, "scenarios/a/rook_eu_arm64_test.go"))
	assert.FileExists(t, filepath.Join(dir, "scenarios/a/rook_helpers_test.go"), "not generated: not touched")
}

// TestInterruptStopsHooks sends SIGTERM to a generated test binary while a hook hangs: the
// hook's whole group is stopped, close still runs, the binary ends, and the records and
// report stay whole.
func TestInterruptStopsHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated test binary")
	}
	dir := newModule(t)
	hookLog := filepath.Join(t.TempDir(), "calls.jsonl")
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  open: {command: [%[1]q]}
  execute: {command: [%[1]q]}
  close: {command: [%[1]q]}
  collect: {command: [%[1]q]}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_LOG: %[2]q
  FAKEHOOK_PIDFILE: %[3]q
  FAKEHOOK_EXECUTE: "hang-child"
capabilities: {multi_turn: true, calls: true, usage: true}
`, os.Args[0], hookLog, pidfile))
	for _, id := range []string{"SC-1", "SC-2"} {
		helloScenario(t, dir, id)
	}
	rookgen(t, dir)
	bin := testBinary(t, dir, "fake")

	records := filepath.Join(t.TempDir(), "records")
	cmd := exec.Command(bin, "-test.v", "-rook.dir="+records)
	cmd.Dir = filepath.Join(dir, "scenarios", "fake")
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool { _, err := os.Stat(pidfile); return err == nil }, 30*time.Second, 20*time.Millisecond,
		"the execute hook never started")
	b, err := os.ReadFile(pidfile)
	require.NoError(t, err)
	child, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	require.NoError(t, cmd.Process.Signal(sigterm))
	err = waitOrKill(t, cmd, &output)
	require.Error(t, err, "an interrupted run fails")
	assert.Contains(t, output.String(), "execute turn 1: failed after")
	assert.Contains(t, output.String(), "stopped: terminated signal received")
	assert.Contains(t, output.String(), "not run: the run was interrupted")
	assert.Eventually(t, func() bool { return processGone(child) }, 5*time.Second, 50*time.Millisecond,
		"the hook's child %d outlived the interrupted run", child)

	calls, err := fakehook.ReadLog(hookLog)
	require.NoError(t, err)
	var phases []string
	for _, c := range calls {
		phases = append(phases, c.Phase)
	}
	assert.Equal(t, []string{"open", "execute", "close"}, phases, "close still ran; nothing else started")
	reports, err := filepath.Glob(filepath.Join(records, "fake", "*", "report.yaml"))
	require.NoError(t, err)
	assert.Len(t, reports, 1, "report.yaml is written")
}

// testBinary builds the generated test package of agent in the module at dir, and returns
// the binary's path.
func testBinary(t *testing.T, dir, agent string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), agent+".test")
	build := exec.Command("go", "test", "-c", "-o", bin, "./scenarios/"+agent)
	build.Dir = dir
	build.Env = append(os.Environ(), goflags)
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// runBinary runs a test binary testBinary built, as go test -json runs it: in its
// package's folder (scenarios/<agent> of the module at dir), its output read by test2json.
// A test that runs one suite many times builds it once and runs it so, rather than have go
// test link it again each time.
func runBinary(t *testing.T, bin, dir, agent string, env []string, args ...string) (results, error) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"tool", "test2json", "-t", "-p", "example.com/agents/scenarios/" + agent, bin, "-test.v=test2json"}, args...)...)
	cmd.Dir = filepath.Join(dir, "scenarios", agent)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return parseEvents(&stdout, stderr.String()), err
}

// waitOrKill waits for a started test binary, killing it and failing the test when it has
// not ended within 30 seconds; output is what it printed.
func waitOrKill(t *testing.T, cmd *exec.Cmd, output *bytes.Buffer) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the test binary did not end:\n%s", output.String())
		return nil
	}
}

// A second Ctrl-C ends the close hooks the first let run: the binary does not wait out a
// slow close, what ran is recorded, and the closing line says close was cut short.
func TestSecondInterruptCutsCloseShort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated test binary")
	}
	dir := newModule(t)
	hookLog := filepath.Join(t.TempDir(), "calls.jsonl")
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  open: {command: [%[1]q]}
  execute: {command: [%[1]q]}
  close: {command: [%[1]q], timeout_seconds: 60}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_LOG: %[2]q
  FAKEHOOK_EXECUTE: "hang"
  FAKEHOOK_CLOSE: "hang"
`, os.Args[0], hookLog))
	helloScenario(t, dir, "SC-1")
	rookgen(t, dir)
	bin := testBinary(t, dir, "fake")
	records := filepath.Join(t.TempDir(), "records")
	cmd := exec.Command(bin, "-test.v", "-rook.dir="+records)
	cmd.Dir = filepath.Join(dir, "scenarios", "fake")
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	require.NoError(t, cmd.Start())
	started := func(phase string) func() bool {
		return func() bool {
			calls, _ := fakehook.ReadLog(hookLog)
			for _, c := range calls {
				if c.Phase == phase {
					return true
				}
			}
			return false
		}
	}
	require.Eventually(t, started("execute"), 30*time.Second, 20*time.Millisecond, "execute never started")
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.Eventually(t, started("close"), 30*time.Second, 20*time.Millisecond, "close never started")
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err := waitOrKill(t, cmd, &output)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 10*time.Second, "the second interrupt does not wait out close")
	assert.Contains(t, output.String(), "was interrupted (interrupt signal received; a second interrupt signal cut the close hooks short)")
	hooks, err := filepath.Glob(filepath.Join(records, "fake", "*", "scenarios", "SC-1", "hooks.json"))
	require.NoError(t, err)
	require.Len(t, hooks, 1)
	data, err := os.ReadFile(hooks[0])
	require.NoError(t, err)
	assert.Contains(t, string(data), `"close"`, "what ran is recorded")
}

// assertNoFileHolds fails the test for every file under root that holds one of secrets.
func assertNoFileHolds(t *testing.T, root string, secrets ...string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, secret := range secrets {
			assert.NotContains(t, string(data), secret, "%s holds a secret", path)
		}
		return nil
	}))
}

// goflags is how the tests build the modules they generate: with the module's go.mod as it
// is, and without DWARF (a fifth less link time for each of the dozens of test binaries).
const goflags = "GOFLAGS=-mod=mod -ldflags=-w"
