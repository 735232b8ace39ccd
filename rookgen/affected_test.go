package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/affected"
)

// git runs git in dir as a test author would.
func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

// rookgen affected, on a repository with three commits and an uncommitted file, lists
// exactly the scenarios the change touched, and -rook.only=@affected runs exactly them.
func TestAffected(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := newModule(t)
	write(t, dir, "hooks/prep.sh", "echo '{}'\n")
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  prepare: {command: [sh, ../../hooks/prep.sh]}
  execute: {command: [%[1]q]}
hook_env: {FAKEHOOK: "1"}
sources: [agent/]
`, os.Args[0]))
	criteria := "acceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n"
	for _, id := range []string{"SC-1", "SC-2", "SC-5"} {
		write(t, dir, "scenarios/fake/"+id+".yaml", "id: "+id+"\ngoal: hello\n"+criteria)
	}
	write(t, dir, "scenarios/fake/SC-3.yaml", "id: SC-3\ngoal: hello\nexercises: {tools: [get_refund], subagents: [], services: []}\n"+criteria)
	write(t, dir, "scenarios/fake/SC-4.yaml", "id: SC-4\ngoal: hello\nsources: [docs/refunds.md]\n"+criteria)
	write(t, dir, "docs/refunds.md", "# Refunds\n")
	write(t, dir, "README.md", "# agents\n")
	rookgen(t, dir)
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "one")
	git(t, dir, "checkout", "-qb", "change")
	write(t, dir, "scenarios/fake/SC-2.yaml", "id: SC-2\ngoal: hello again\n"+criteria)
	write(t, dir, "tools/get_refund.py", "def get_refund(): pass\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-qm", "two")
	write(t, dir, "docs/refunds.md", "# Refunds, revised\n")
	write(t, dir, "README.md", "# agents, revised\n")
	git(t, dir, "commit", "-qam", "three")
	until := time.Now().AddDate(0, 1, 0).Format(time.DateOnly)
	write(t, dir, "profiles/fake/quarantine.yaml", "quarantine:\n  - {scenario: SC-5, reason: sandbox down, expires: "+until+"}\n") // untracked
	rookgen(t, dir)

	var out, errOut strings.Builder
	require.Equal(t, 0, run([]string{"affected", "-root", dir}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "rookgen affected: 4 of 5 scenario(s) affected by 6 changed file(s) since main")
	for _, line := range []string{
		"  SC-2  scenarios/fake/SC-2.yaml changed",
		"  SC-3  tools/get_refund.py changed, named after get_refund, which it exercises",
		"  SC-4  docs/refunds.md changed, a source it names (docs/refunds.md)",
		"  SC-5  profiles/fake/quarantine.yaml changed, and names it",
		"fake: 4 of 5 scenario(s); expected wall time about 0s a profile (at concurrency 1, from the last runs' durations), and 4 never run",
	} {
		assert.Contains(t, out.String(), line)
	}
	assert.NotContains(t, out.String(), "SC-1")
	set, err := affected.Load(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"SC-2", "SC-3", "SC-4", "SC-5"}, set.IDs("fake"))

	records := t.TempDir()
	res, err := goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/fake", "-rook.dir="+records, "-rook.only=@affected")
	require.NoError(t, err, res.all)
	assert.Contains(t, res.all, "-rook.only=@affected: SC-2, SC-3, SC-4, SC-5, affected by the change since main")
	runs, _ := filepath.Glob(filepath.Join(records, "fake", "*", "run.yaml"))
	require.Len(t, runs, 1)
	runYAML, err := os.ReadFile(runs[0])
	require.NoError(t, err)
	assert.Contains(t, string(runYAML), "skipped:\n  - scenario_id: SC-1\n")
	assert.Equal(t, 4, strings.Count(string(runYAML)[:strings.Index(string(runYAML), "skipped:")], "scenario_id:"))

	// The agent's own code changed, where its profile's sources: place it: SC-1, which
	// names no sources of its own, is affected too.
	write(t, dir, "agent/loop.go", "package agent\n")
	out.Reset()
	require.Equal(t, 0, run([]string{"affected", "-root", dir, "-dir", records}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "  SC-1  agent/loop.go changed, in the agent's sources (agent/)")
	assert.NotContains(t, out.String(), "  SC-4  agent/loop.go", "SC-4 names its own sources")

	// A hook script changed: every scenario of the agent, now with its recorded time.
	write(t, dir, "hooks/prep.sh", "echo '{\"ready\": true}'\n")
	out.Reset()
	require.Equal(t, 0, run([]string{"affected", "-root", dir, "-dir", records}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "  SC-1  hooks/prep.sh changed (a hook of the agent's profiles)")
	assert.Contains(t, out.String(), "fake: 5 of 5 scenario(s); expected wall time about")
	assert.Contains(t, out.String(), "and 1 never run, whose time is not known")

	out.Reset()
	assert.Equal(t, 1, run([]string{"affected", "-root", dir, "-base", "nosuch"}, &out, &errOut))
	assert.Contains(t, errOut.String(), "rookgen affected: find where HEAD left nosuch (give -base a branch, tag or commit this repository has)")
}
