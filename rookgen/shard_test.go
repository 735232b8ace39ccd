package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rookgo/rookgo/internal/fakehook"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShards: three shards in three go test processes run every scenario exactly once.
func TestShards(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\"}\n", os.Args[0]))
	var all []string
	for i := 1; i <= 9; i++ {
		id := fmt.Sprintf("SC-%d", i)
		all = append(all, "TestFake/"+id)
		helloScenario(t, dir, id)
	}
	rookgen(t, dir)
	records := filepath.Join(t.TempDir(), "runs")
	ran := map[string]string{}
	for k := 1; k <= 3; k++ {
		shard := fmt.Sprintf("%d/3", k)
		env := []string{goflags, "ROOKTEST_SHARD=" + shard}
		if k == 3 {
			env = env[:1] // the flag as well as its twin
		}
		args := []string{"./scenarios/fake", "-rook.dir=" + records}
		if k == 3 {
			args = append(args, "-rook.shard="+shard)
		}
		res, err := goTest(t, dir, env, args...)
		require.NoError(t, err, res.all)
		assert.Contains(t, res.output["TestFake"], "in shard "+shard)
		for _, sc := range all {
			switch res.action[sc] {
			case "pass":
				assert.Empty(t, ran[sc], "%s ran in shards %s and %s", sc, ran[sc], shard)
				ran[sc] = shard
			case "skip":
				assert.Contains(t, res.output[sc], "runs it (-rook.shard="+shard+")")
			default:
				t.Errorf("%s in shard %s: %q", sc, shard, res.action[sc])
			}
		}
	}
	for _, sc := range all {
		assert.NotEmpty(t, ran[sc], "%s ran in no shard", sc)
	}
	t.Logf("shards: %v", ran)

	// A shard holding none of the nine scenarios passes, saying so.
	res, err := goTest(t, dir, []string{goflags}, "./scenarios/fake", "-rook.dir="+records, "-rook.shard=1/1000")
	require.NoError(t, err, res.all)
	assert.Contains(t, res.output["TestFake"], "shard 1/1000 holds no scenario of this suite")
}

// TestShardsMergeLikeOneRun: a suite with every kind of outcome, run once whole and once
// as three shards in three go test processes (each with its own records root, as three CI
// jobs have), merged with rookgen report -merge: the merged run has the same plan,
// verdicts, totals and clusters as the whole one.
func TestShardsMergeLikeOneRun(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated package four times")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  prepare: {command: [%[1]q]}\n  execute: {command: [%[1]q]}\nhook_env: {FAKEHOOK: \"1\"}\n", os.Args[0]))
	for i := 1; i <= 6; i++ {
		helloScenario(t, dir, fmt.Sprintf("SC-%02d", i))
	}
	for _, id := range []string{"SC-07", "SC-08"} {
		write(t, dir, "scenarios/fake/"+id+".yaml", "id: "+id+"\nfeature_id: F-1\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: goodbye}}\n")
	}
	write(t, dir, "scenarios/fake/SC-09.yaml", "id: SC-09\ngoal: hello\nacceptance_criteria:\n  - {statement: The agent is kind., check: llm_judge}\n")
	write(t, dir, "scenarios/fake/SC-10.yaml", "id: SC-10\ngoal: hello\nsetup_messages: [hi]\n")
	write(t, dir, "scenarios/fake/SC-11.yaml", "id: SC-11\ngoal: hello\nexecutable: false\nskip_reason: needs a phone\n")
	write(t, dir, "scenarios/fake/SC-12.yaml", "id: SC-12\ngoal: hello\nexcluded: true\n")
	rookgen(t, dir)
	env := []string{goflags}

	whole := filepath.Join(t.TempDir(), "whole")
	res, err := goTest(t, dir, env, "./scenarios/fake", "-rook.dir="+whole, "-rook.run-id=whole-1")
	require.Error(t, err, "SC-07 and SC-08 fail")
	assert.Equal(t, "fail", res.action["TestFake/SC-07"])

	artifacts := t.TempDir()
	for k := 1; k <= 3; k++ {
		shardEnv := append(env, "ROOKTEST_RUN_ID=ci-42") // the flag's twin, as a CI job sets it
		records := filepath.Join(artifacts, fmt.Sprintf("shard-%d", k), ".rook", "runs")
		res, _ := goTest(t, dir, shardEnv, "./scenarios/fake", "-rook.dir="+records, fmt.Sprintf("-rook.shard=%d/3", k))
		assert.Contains(t, res.output["TestFake"], "rook run ci-42 (new run;")
	}
	shard := func(k int) string { return filepath.Join(artifacts, fmt.Sprintf("shard-%d", k)) }

	merged := filepath.Join(t.TempDir(), "merged")
	var stdout, stderr bytes.Buffer
	code := run([]string{"report", "-merge", shard(1), shard(2), shard(3), "-dir", merged, "-format", "yaml"}, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stderr.String(), "merged 3 shards into "+filepath.Join(merged, "fake", "ci-42"))
	assert.Contains(t, stdout.String(), "run_id: ci-42")

	one := store.Store{Dir: filepath.Join(whole, "fake", "whole-1")}
	three := store.Store{Dir: filepath.Join(merged, "fake", "ci-42")}
	oneRun, err := one.Run()
	require.NoError(t, err)
	threeRun, err := three.Run()
	require.NoError(t, err)
	require.Len(t, oneRun.Included, 9)
	require.Len(t, oneRun.Skipped, 2)
	require.Len(t, oneRun.Unrunnable, 1)
	t.Logf("skipped %v; unrunnable %v", oneRun.Skipped, oneRun.Unrunnable)
	assert.Equal(t, oneRun.Included, threeRun.Included)
	assert.Equal(t, oneRun.Skipped, threeRun.Skipped)
	assert.Equal(t, oneRun.Unrunnable, threeRun.Unrunnable)
	assert.Equal(t, oneRun.PhasesRun, threeRun.PhasesRun)
	assert.Equal(t, []int{1, 2, 3}, threeRun.Shard.Merged)

	oneRep, err := one.Report()
	require.NoError(t, err)
	threeRep, err := three.Report()
	require.NoError(t, err)
	assert.Equal(t, oneRep.Totals, threeRep.Totals)
	assert.Equal(t, oneRep.Clusters, threeRep.Clusters)
	assert.Equal(t, oneRep.Prepare.Status, threeRep.Prepare.Status)
	assert.Equal(t, 3, threeRep.Prepare.Attempts, "each shard ran its own prepare")
	assert.Equal(t, oneRep.Metrics.TurnsTotal, threeRep.Metrics.TurnsTotal)
	assert.Equal(t, oneRep.Metrics.CriteriaDecided, threeRep.Metrics.CriteriaDecided)
	t.Logf("whole: %+v", oneRep.Totals)
	t.Logf("merged: %+v", threeRep.Totals)
	for _, e := range oneRun.Included {
		a, err := store.ReadVerdict(one.ScenarioDir(e.ScenarioID))
		require.NoError(t, err)
		b, err := store.ReadVerdict(three.ScenarioDir(e.ScenarioID))
		require.NoError(t, err, "%s in the merged run", e.ScenarioID)
		assert.Equal(t, a.Status, b.Status, e.ScenarioID)
		assert.Equal(t, rowStatuses(a), rowStatuses(b), e.ScenarioID)
	}
	for k := 1; k <= 3; k++ {
		assert.FileExists(t, filepath.Join(three.Dir, "shards", fmt.Sprint(k), "run.yaml"))
	}
	assert.FileExists(t, filepath.Join(three.Dir, "report.html"))

	// The merged run reads as any run: rookgen report finds it by id.
	stdout.Reset()
	stderr.Reset()
	require.Equal(t, 0, run([]string{"report", "-dir", merged, "-run", "ci-42"}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "ci-42")

	// Refused: a shard missing, a shard given twice, the same merge again, a run that is
	// not a shard, a folder without the run -run names.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{shard(1), shard(3)}, "run ci-42 is missing shard(s) 2/3: merge all 3"},
		{[]string{shard(1), shard(1), shard(2), shard(3)}, "shard 1/3 given twice"},
		{[]string{shard(1), shard(2), shard(3)}, "already exists: merge into another records root"},
		{[]string{whole}, "is not a shard: it ran without -rook.shard"},
		{[]string{"-run", "ci-42", shard(1), whole}, whole + " holds no folder of run ci-42"},
	} {
		stdout.Reset()
		stderr.Reset()
		args := append([]string{"report", "-dir", merged, "-merge"}, c.args...)
		assert.Equal(t, 1, run(args, &stdout, &stderr), "%v", c.args)
		assert.Contains(t, stderr.String(), c.want, "%v", c.args)
	}

	// A run id names one run: a second run with the same id is refused before any hook.
	res, err = goTest(t, dir, env, "./scenarios/fake", "-rook.dir="+whole, "-rook.run-id=whole-1")
	require.Error(t, err)
	assert.Contains(t, res.output["TestFake"], "run whole-1 already exists")
}

// rowStatuses is each criterion's id and status, in order.
func rowStatuses(v *record.Verdict) string {
	var b strings.Builder
	for _, r := range v.Criteria {
		fmt.Fprintf(&b, "%s=%s ", r.CriterionID, r.Status)
	}
	return b.String()
}

// A shard that holds no scenario of the suite (a matrix wider than the suite) passes
// without running prepare, saying so; the other shard runs the suite.
func TestAShardWithNoScenarioPasses(t *testing.T) {
	t.Parallel() // waits on builds and hooks more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	hookLog := filepath.Join(t.TempDir(), "calls.jsonl")
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  prepare: {command: [%[1]q]}\n  execute: {command: [%[1]q]}\nhook_env: {FAKEHOOK: \"1\", FAKEHOOK_LOG: %[2]q, FAKEHOOK_PREPARE: \"sleep:300ms\"}\n", os.Args[0], hookLog))
	helloScenario(t, dir, "SC-01")
	rookgen(t, dir)
	empty := 0
	for k := 1; k <= 2; k++ {
		res, err := goTest(t, dir, []string{goflags}, "./scenarios/fake", "-rook.dir="+t.TempDir(), fmt.Sprintf("-rook.shard=%d/2", k))
		require.NoError(t, err, "shard %d/2:\n%s", k, res.all)
		if strings.Contains(res.output["TestFake"], "holds no scenario of this suite") {
			empty++
			assert.Contains(t, res.output["TestFake"], "prepare did not run")
		}
	}
	require.Equal(t, 1, empty, "one of the two shards holds the one scenario")
	calls, err := fakehook.ReadLog(hookLog)
	require.NoError(t, err)
	var prepares int
	for _, c := range calls {
		if c.Phase == "prepare" {
			prepares++
		}
	}
	assert.Equal(t, 1, prepares, "prepare ran for the shard that holds a scenario, and only there")
}
