package rooktest_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rookgo/rookgo/rooktest"
)

// The examples write the test file rookgen would; this one is compiled against the same
// runtime.
var _ = rooktest.SupportsGenVersion1

// exampleProfile is a profile whose agent is one line of Node: it answers every message
// with the rule it follows.
const exampleProfile = `id: staging
hooks:
  execute:
    command: [node, -e, "let s = ''; process.stdin.on('data', d => s += d).on('end', () => console.log(JSON.stringify({output: 'Refunds over 200 EUR need a manager: ' + s})))"]
`

const exampleScenario = `id: SC-004
title: Refund over limit
goal: Refund the 450 EUR for order ORD-2002.
acceptance_criteria:
  - statement: The reply says a manager must approve it.
    check: contains
    params: {text: manager}
  - statement: No refund is said to be issued.
    check: not_contains
    params: {text: refund issued}
`

// exampleTest is the test file rookgen writes for the profile, given the files' hashes.
func exampleTest(profileSHA, scenarioSHA string) string {
	return `package refunds_test

import (
	"testing"

	"github.com/rookgo/rookgo/rooktest"
)

const _ = rooktest.SupportsGenVersion1

var suiteStaging = rooktest.Suite{
	Agent:   "refunds",
	Profile: rooktest.File{Path: "profiles/refunds/staging.yaml", SHA256: "` + profileSHA + `"},
	Scenarios: []rooktest.Scenario{
		{ID: "SC-004", File: rooktest.File{Path: "scenarios/refunds/SC-004.yaml", SHA256: "` + scenarioSHA + `"}},
	},
}

func TestStaging(t *testing.T) {
	run := rooktest.Start(t, suiteStaging)
	t.Run("SC-004_refund_over_limit", run.Scenario("SC-004"))
}
`
}

func sha(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

// goTestModule writes a module that uses this repository with files, runs go test with
// args in it, and prints the lines of its output that say what passed and failed (and
// those holding any of also), without their times.
func goTestModule(files map[string]string, args []string, also ...string) {
	dir, err := os.MkdirTemp("", "rooktest-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	repo, _ := filepath.Abs("..")
	sum, _ := os.ReadFile(filepath.Join(repo, "go.sum"))
	files["go.mod"] = "module example.com/refunds\n\ngo 1.26\n\nrequire github.com/rookgo/rookgo v0.0.0\n\nreplace github.com/rookgo/rookgo => " + repo + "\n"
	files["go.sum"] = string(sum)
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		_ = os.WriteFile(path, []byte(text), 0o644)
	}
	cmd := exec.Command("go", append([]string{"test"}, args...)...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOFLAGS=-mod=mod")
	out, _ := cmd.CombinedOutput()
	took := regexp.MustCompile(`\s*\(?\d+\.\d+s\)?$`)
	at := regexp.MustCompile(`^\s*\S+\.go:\d+: `) // the test file's line, where go test logs
	for _, line := range strings.Split(string(out), "\n") {
		t := strings.TrimSpace(line)
		show := strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "ok ") || strings.HasPrefix(t, "FAIL")
		for _, a := range also {
			show = show || strings.Contains(t, a)
		}
		if show {
			fmt.Println(took.ReplaceAllString(at.ReplaceAllString(line, "    "), ""))
		}
	}
}

// A suite as rookgen writes it for an agent "refunds" with a profile "staging": a Suite
// naming the profile and scenario files with their SHA-256, and a test that starts the run
// and runs each scenario as a subtest, whose criteria are its subtests in turn. This
// example writes such a module, whose agent is one line of Node, and runs go test -v on it.
func Example() {
	goTestModule(map[string]string{
		"profiles/refunds/staging.yaml":          exampleProfile,
		"scenarios/refunds/SC-004.yaml":          exampleScenario,
		"scenarios/refunds/staging_rook_test.go": exampleTest(sha(exampleProfile), sha(exampleScenario)),
	}, []string{"-v", "./scenarios/refunds"})
	// Output:
	// --- PASS: TestStaging
	//     --- PASS: TestStaging/SC-004_refund_over_limit
	//         --- PASS: TestStaging/SC-004_refund_over_limit/C1_contains_manager
	//         --- PASS: TestStaging/SC-004_refund_over_limit/C2_not_contains_refund_issued
	// ok  	example.com/refunds/scenarios/refunds
}

// A Suite holds the hashes of the files it was generated from: once a file changes, Start
// refuses the suite, before any hook runs, until it is generated again.
func ExampleSuite() {
	edited := strings.Replace(exampleScenario, "450 EUR", "950 EUR", 1)
	goTestModule(map[string]string{
		"profiles/refunds/staging.yaml":          exampleProfile,
		"scenarios/refunds/SC-004.yaml":          edited,
		"scenarios/refunds/staging_rook_test.go": exampleTest(sha(exampleProfile), sha(exampleScenario)),
	}, []string{"./scenarios/refunds"}, "scenarios/refunds/SC-004.yaml changed")
	// Output:
	// --- FAIL: TestStaging
	//     rooktest: scenarios/refunds/SC-004.yaml changed after the test was generated: the generated test is stale; run go generate ./... (or go run github.com/rookgo/rookgo/rookgen)
	// FAIL
	// FAIL	example.com/refunds/scenarios/refunds
	// FAIL
}

// Run.Scenario is the body of a scenario's subtest: go test -run selects scenarios, and
// criteria, by their subtests' names.
func ExampleRun_Scenario() {
	goTestModule(map[string]string{
		"profiles/refunds/staging.yaml":          exampleProfile,
		"scenarios/refunds/SC-004.yaml":          exampleScenario,
		"scenarios/refunds/staging_rook_test.go": exampleTest(sha(exampleProfile), sha(exampleScenario)),
	}, []string{"-v", "-run", "TestStaging/SC-004/C2", "./scenarios/refunds"})
	// Output:
	// --- PASS: TestStaging
	//     --- PASS: TestStaging/SC-004_refund_over_limit
	//         --- PASS: TestStaging/SC-004_refund_over_limit/C2_not_contains_refund_issued
	// ok  	example.com/refunds/scenarios/refunds
}

// Start checks everything a run needs before any hook runs: here, the profile declares a
// variable the environment does not set, and the test fails saying so.
func ExampleStart() {
	profile := exampleProfile + "env:\n  - {variable: REFUNDS_EXAMPLE_TOKEN, purpose: Signs the agent's requests, secret: true}\n"
	goTestModule(map[string]string{
		"profiles/refunds/staging.yaml":          profile,
		"scenarios/refunds/SC-004.yaml":          exampleScenario,
		"scenarios/refunds/staging_rook_test.go": exampleTest(sha(profile), sha(exampleScenario)),
	}, []string{"./scenarios/refunds"}, "REFUNDS_EXAMPLE_TOKEN")
	// Output:
	// --- FAIL: TestStaging
	//     rooktest: profile staging needs environment variables that are not set (or empty): REFUNDS_EXAMPLE_TOKEN (Signs the agent's requests)
	// FAIL
	// FAIL	example.com/refunds/scenarios/refunds
	// FAIL
}

// An agent written in Go runs in the test's own process: its profile names it, and a
// hand-written file of the test package registers it. Each phase is a method; Execute is
// one turn.
func ExampleRegisterAgent() {
	profile := "id: staging\nhooks: {go: refunds}\n"
	register := `package refunds_test

import (
	"context"

	"github.com/rookgo/rookgo/rooktest"
)

func init() { rooktest.RegisterAgent("refunds", func() (rooktest.Agent, error) { return agent{}, nil }) }

type agent struct{}

func (agent) Execute(ctx context.Context, c rooktest.Call) (rooktest.Reply, error) {
	return rooktest.Reply{Output: "Refunds over 200 EUR need a manager: " + c.Message}, nil
}
`
	goTestModule(map[string]string{
		"profiles/refunds/staging.yaml":          profile,
		"scenarios/refunds/SC-004.yaml":          exampleScenario,
		"scenarios/refunds/agent_test.go":        register,
		"scenarios/refunds/staging_rook_test.go": exampleTest(sha(profile), sha(exampleScenario)),
	}, []string{"-v", "./scenarios/refunds"})
	// Output:
	// --- PASS: TestStaging
	//     --- PASS: TestStaging/SC-004_refund_over_limit
	//         --- PASS: TestStaging/SC-004_refund_over_limit/C1_contains_manager
	//         --- PASS: TestStaging/SC-004_refund_over_limit/C2_not_contains_refund_issued
	// ok  	example.com/refunds/scenarios/refunds
}
