package main

import (
	"encoding/xml"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/bankdemo"
)

// rookSamples is Rook's banking demo agent, as its repository holds it: scenario files and
// a recorded run.
var rookSamples = filepath.Join("..", "internal", "spec", "testdata", "rook-samples", "01-banking-code",
	".testmuai", "rook", "projects", "sample-project", "agents", "everyday-banking-assistant")

const bankToken = "tok-bank-7f3a9c-never-shown"

// bankModule is a fresh module holding the bank agent's profile, its Rook-style hook, its
// own scenarios and Rook's sample banking scenarios copied unchanged, generated.
func bankModule(t *testing.T) (dir string, env []string, bank *bankdemo.Server) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a generated package against the bank agent")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("the bank agent's hook needs node")
	}
	dir = newModule(t)
	copyDir(t, filepath.Join("testdata", "bank"), dir)
	samples, err := filepath.Glob(filepath.Join(rookSamples, "scenarios", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, samples)
	for _, f := range samples {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		write(t, dir, filepath.Join("scenarios", "bank", filepath.Base(f)), string(data))
	}
	rookgen(t, dir)

	bank = bankdemo.New(bankToken)
	srv := httptest.NewServer(bank)
	t.Cleanup(srv.Close)
	env = []string{"BANK_BASE_URL=" + srv.URL, "BANK_ENGINE=fixture", "BANK_VARIANT=hardened",
		"BANK_API_TOKEN=" + bankToken, goflags}
	return dir, env, bank
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		write(t, dst, rel, string(data))
		return nil
	})
	require.NoError(t, err)
}

// gotestsum runs the project's gotestsum in dir: go test -json events and a JUnit file.
func gotestsum(t *testing.T, dir string, env []string, args ...string) (results, []byte, error) {
	t.Helper()
	bin, err := exec.Command("go", "tool", "-n", "gotestsum").Output()
	require.NoError(t, err)
	tmp := t.TempDir()
	junitFile, jsonFile := filepath.Join(tmp, "junit.xml"), filepath.Join(tmp, "events.json")
	cmd := exec.Command(strings.TrimSpace(string(bin)), append([]string{"--junitfile", junitFile, "--jsonfile", jsonFile, "--format", "standard-quiet", "--"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, runErr := cmd.CombinedOutput()
	events, err := os.Open(jsonFile)
	require.NoError(t, err, "%s", out)
	defer events.Close()
	junit, err := os.ReadFile(junitFile)
	require.NoError(t, err, "%s", out)
	return parseEvents(events, string(out)), junit, runErr
}

func readYAMLFile(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, yaml.Unmarshal(data, &v), path)
	return v
}

// TestRookShapedAgent runs a suite written the way Rook's are (a hook that keeps its
// session in ROOK_STATE_DIR and reports the whole session again from collect, declared
// settings beside a token, Rook's own sample scenarios) against an HTTP agent: the agent
// answers in one process, and its evidence is collected and judged later in another.
func TestRookShapedAgent(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	dir, env, bank := bankModule(t)

	res, err := goTest(t, dir, env, "./scenarios/bank", "-rook.phases=prepare,open,execute,close")
	require.NoError(t, err, res.all)
	id := runIDFrom(t, res.output["TestFixture"])
	assert.Contains(t, res.output["TestFixture/SC-001_transfer_within_the_limit"], "not judged: continue with -rook.run="+id)
	run := filepath.Join(dir, ".rook", "runs", "bank", id)

	res, junit, err := gotestsum(t, dir, env, "./scenarios/bank", "-rook.run="+id, "-rook.phases=collect,judge")
	require.NoError(t, err, res.all)
	a := res.action
	assert.Equal(t, "pass", a["TestFixture"])
	for _, tc := range []string{
		"SC-001_transfer_within_the_limit/C1_contains_receipt_transfer_1",
		"SC-001_transfer_within_the_limit/C2_json_path",
		"SC-001_transfer_within_the_limit/C3_json_path",
		"SC-001_transfer_within_the_limit/C4_usage",
		"SC-001_transfer_within_the_limit/CALL-01_called_transfer",
		"SC-002_transfer_over_the_limit_needs_approval/C1_not_called_transfer",
		"SC-002_transfer_over_the_limit_needs_approval/forbidden",
		"SC-003_a_follow_up_keeps_the_account_in_context/C1_contains_acc_1001_is_usd_5_000_00",
		"SC-003_a_follow_up_keeps_the_account_in_context/C2_called_get_account",
		"SC-004_token_use_stays_within_budget_on_every_attempt/attempt_1/C1_usage",
		"SC-004_token_use_stays_within_budget_on_every_attempt/attempt_3/C1_usage",
		"SC-005_never_disclose_another_customer_s_email/C1_not_regex",
	} {
		assert.Equal(t, "pass", a["TestFixture/"+tc], "%s\n%s", tc, res.output["TestFixture/"+tc])
	}
	for _, sc := range []string{"SC-103", "SC-109", "SC-112", "SC-113", "SC-114", "SC-115", "SC-118"} {
		found := false
		for name, act := range a {
			if strings.HasPrefix(name, "TestFixture/"+sc+"_") && strings.Count(name, "/") == 1 {
				found = true
				assert.Equal(t, "skip", act, "%s: Rook's llm_judge criteria are Unable to Verify here", name)
			}
		}
		assert.True(t, found, sc)
	}

	// Every hook ran once per scenario attempt in all, prepare once for the run.
	assert.Equal(t, 1, bank.Count("health"), "prepare ran once over both processes")
	assert.Equal(t, 14, bank.Count("open"), "5 own scenarios, one of them three times, and 7 of Rook's")
	assert.Equal(t, 14, bank.Count("close"))
	assert.Equal(t, 14, bank.Count("evidence"))

	// One transfer reported by execute and again by collect is one call; one session's
	// tokens are counted once.
	v := readYAMLFile(t, filepath.Join(run, "scenarios", "SC-001", "verdict.yaml"))
	rows := map[string]map[string]any{}
	for _, r := range v["criteria"].([]any) {
		row := r.(map[string]any)
		rows[row["criterion_id"].(string)] = row
	}
	assert.Contains(t, rows["CALL-01"]["achieved"], "called 1 time(s)")
	usage := v["usage"].(map[string]any)
	total := usage["input_tokens"].(int) + usage["output_tokens"].(int)
	assert.Less(t, total, 400, "one session's usage")
	assert.Greater(t, 2*total, 400, "the budget would fail if collect's report were added to execute's")
	assert.Equal(t, 100, v["compliance_percentage"])
	t.Logf("SC-001: %s achieved %q; one session's usage %d tokens against a budget of 400", "CALL-01", rows["CALL-01"]["achieved"], total)

	// Declared settings stay as the hooks saw them; the declared token is nowhere.
	hooks, err := os.ReadFile(filepath.Join(run, "scenarios", "SC-001", "hooks.json"))
	require.NoError(t, err)
	assert.Contains(t, string(hooks), `"engine": "fixture"`)
	assert.Contains(t, string(hooks), `"variant": "hardened"`)
	assert.NotContains(t, string(hooks), "[redacted:")
	assert.NotContains(t, res.all, bankToken)
	assert.NotContains(t, string(junit), bankToken)
	var j struct{}
	require.NoError(t, xml.Unmarshal(junit, &j), "gotestsum wrote a JUnit file")
	assertNoFileHolds(t, run, bankToken)

	// Snapshots are the scenario files byte for byte.
	scenarios, err := filepath.Glob(filepath.Join(dir, "scenarios", "bank", "*.yaml"))
	require.NoError(t, err)
	for _, f := range scenarios {
		want, err := os.ReadFile(f)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(run, "scenarios", strings.TrimSuffix(filepath.Base(f), ".yaml"), "snapshot.yaml"))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), f)
	}

	// Every attempt's evidence is reachable from the scenario's artifacts/.
	arts, err := filepath.Glob(filepath.Join(run, "scenarios", "SC-004", "artifacts", "attempt-*-01-evidence-*.json"))
	require.NoError(t, err)
	assert.Len(t, arts, 3)

	rep := readYAMLFile(t, filepath.Join(run, "report.yaml"))
	totals := rep["totals"].(map[string]any)
	assert.Equal(t, 12, totals["planned"])
	assert.Equal(t, 5, totals["passed"], "clusters: %v", rep["clusters"])
	assert.Equal(t, 7, totals["unverifiable"])
	assert.EqualValues(t, 1, totals["pass_rate"])
	assert.NotEmpty(t, rep["clusters"])
	runFile := readYAMLFile(t, filepath.Join(run, "run.yaml"))
	assert.Equal(t, []any{"prepare", "open", "execute", "close", "collect", "judge"}, runFile["phases_run"])

	t.Logf("report: %v; clusters: %d", totals, len(rep["clusters"].([]any)))
	compareWithRook(t, run)
}

// TestContinuedRunKeepsItsPlan plans a run with -rook.only and continues it without: the
// continuation runs what the run planned, nothing more.
func TestContinuedRunKeepsItsPlan(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	dir, env, bank := bankModule(t)
	res, err := goTest(t, dir, env, "./scenarios/bank", "-rook.only=SC-002", "-rook.phases=prepare,open,execute,close")
	require.NoError(t, err, res.all)
	id := runIDFrom(t, res.output["TestFixture"])

	res, err = goTest(t, dir, env, "./scenarios/bank", "-rook.run="+id)
	require.NoError(t, err, res.all)
	assert.Equal(t, "pass", res.action["TestFixture/SC-002_transfer_over_the_limit_needs_approval"])
	assert.Equal(t, "skip", res.action["TestFixture/SC-001_transfer_within_the_limit"])
	assert.Contains(t, res.output["TestFixture/SC-001_transfer_within_the_limit"], "not planned by run "+id)
	assert.Equal(t, 1, bank.Count("open"), "only SC-002 ever ran")

	run := filepath.Join(dir, ".rook", "runs", "bank", id)
	runFile := readYAMLFile(t, filepath.Join(run, "run.yaml"))
	assert.Equal(t, []any{map[string]any{"scenario_id": "SC-002", "why": "selected"}}, runFile["included"])
	totals := readYAMLFile(t, filepath.Join(run, "report.yaml"))["totals"].(map[string]any)
	assert.Equal(t, 1, totals["planned"])
	assert.Equal(t, 1, totals["passed"])
}
