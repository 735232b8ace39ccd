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
)

// A suite as rookgen writes it for an agent "refunds" with a profile "staging": a Suite
// naming the profile and scenario files with their SHA-256 (Start refuses a suite whose
// files changed since), and a test that starts the run and runs each scenario as a
// subtest. This example writes such a module, whose agent is one line of Node, and runs go
// test on it.
func Example() {
	dir, err := os.MkdirTemp("", "rooktest-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	repo, _ := filepath.Abs("..")
	sum, _ := os.ReadFile(filepath.Join(repo, "go.sum"))
	profile := `id: staging
hooks:
  execute:
    command: [node, -e, "let s = ''; process.stdin.on('data', d => s += d).on('end', () => console.log(JSON.stringify({output: 'Refunds over 200 EUR need a manager: ' + s})))"]
`
	scenario := `id: SC-004
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
	hash := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	test := `package refunds_test

import (
	"testing"

	"github.com/rookgo/rookgo/rooktest"
)

const _ = rooktest.SupportsGenVersion1

var suiteStaging = rooktest.Suite{
	Agent:   "refunds",
	Profile: rooktest.File{Path: "profiles/refunds/staging.yaml", SHA256: "` + hash(profile) + `"},
	Scenarios: []rooktest.Scenario{
		{ID: "SC-004", File: rooktest.File{Path: "scenarios/refunds/SC-004.yaml", SHA256: "` + hash(scenario) + `"}},
	},
}

func TestStaging(t *testing.T) {
	run := rooktest.Start(t, suiteStaging)
	t.Run("SC-004_refund_over_limit", run.Scenario("SC-004"))
}
`
	for name, text := range map[string]string{
		"go.mod": "module example.com/refunds\n\ngo 1.26\n\nrequire github.com/rookgo/rookgo v0.0.0\n\nreplace github.com/rookgo/rookgo => " + repo + "\n",
		"go.sum": string(sum), "profiles/refunds/staging.yaml": profile, "scenarios/refunds/SC-004.yaml": scenario,
		"scenarios/refunds/staging_rook_test.go": test,
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		_ = os.MkdirAll(filepath.Dir(path), 0o755)
		_ = os.WriteFile(path, []byte(text), 0o644)
	}

	cmd := exec.Command("go", "test", "-v", "./scenarios/refunds")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOFLAGS=-mod=mod")
	out, _ := cmd.CombinedOutput()
	took := regexp.MustCompile(`\s*\(?\d+\.\d+s\)?$`)
	for _, line := range strings.Split(string(out), "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "ok ") || strings.HasPrefix(t, "FAIL") {
			fmt.Println(took.ReplaceAllString(line, ""))
		}
	}
	// Output:
	// --- PASS: TestStaging
	//     --- PASS: TestStaging/SC-004_refund_over_limit
	//         --- PASS: TestStaging/SC-004_refund_over_limit/C1_contains_manager
	//         --- PASS: TestStaging/SC-004_refund_over_limit/C2_not_contains_refund_issued
	// ok  	example.com/refunds/scenarios/refunds
}
