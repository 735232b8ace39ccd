package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/store"
)

// A plan made from a run's durations splits the suite by time: each CI engine's three
// shards, named by its own variables (-rook.shard=auto), run what the plan gives them and
// merge like one run; shards that ran different plans are refused.
func TestShardPlanAcrossEngines(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  execute: {command: [%[1]q]}
hook_env:
  FAKEHOOK: "1"
concurrency: 4
`, os.Args[0]))
	for i := 1; i <= 9; i++ {
		helloScenario(t, dir, fmt.Sprintf("SC-%02d", i))
	}
	rookgen(t, dir)
	bin := testBinary(t, dir, "fake")
	whole := filepath.Join(t.TempDir(), "runs")
	// Three scenarios are slow in the run the plan is made from (the hooks inherit the
	// variables), and only there: the shards run quickly.
	slowly := []string{goflags, "FAKEHOOK_EXECUTE_SC_01=sleep:1200ms", "FAKEHOOK_EXECUTE_SC_02=sleep:1100ms", "FAKEHOOK_EXECUTE_SC_03=sleep:1000ms"}
	res, err := runBinary(t, bin, dir, "fake", slowly, "-rook.dir="+whole, "-rook.run-id=whole")
	require.NoError(t, err, res.all)

	var out, errOut bytes.Buffer
	require.Equal(t, 0, run([]string{"shards", "-root", dir, "-dir", whole, "-n", "3", "-from", "whole"}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "rookgen shards: wrote "+filepath.Join(dir, ".rook", "shards.json"))
	assert.Contains(t, out.String(), "fake: 9 scenario(s); expected per shard ")
	plan, err := report.LoadShardPlan(filepath.Join(dir, ".rook", "shards.json"))
	require.NoError(t, err)
	slow := []int{plan.Agents["fake"]["SC-01"], plan.Agents["fake"]["SC-02"], plan.Agents["fake"]["SC-03"]}
	assert.ElementsMatch(t, []int{1, 2, 3}, slow, "the three slow scenarios go to three shards")

	wholeRun, err := (store.Store{Dir: filepath.Join(whole, "fake", "whole")}).Run()
	require.NoError(t, err)
	for _, engine := range []struct {
		name string
		flag string
		env  func(i int) []string
	}{
		{"buildkite", "auto", func(i int) []string {
			return []string{fmt.Sprintf("BUILDKITE_PARALLEL_JOB=%d", i), "BUILDKITE_PARALLEL_JOB_COUNT=3"}
		}},
		{"circleci", "auto", func(i int) []string { return []string{fmt.Sprintf("CIRCLE_NODE_INDEX=%d", i), "CIRCLE_NODE_TOTAL=3"} }},
		{"kubernetes", "auto/3", func(i int) []string { return []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)} }},
	} {
		artifacts := t.TempDir()
		// The three jobs run at once, as a CI engine's parallel jobs do.
		var wg sync.WaitGroup
		results, errs := make([]results, 3), make([]error, 3)
		for i := range 3 {
			wg.Go(func() {
				env := append([]string{goflags, "ROOKTEST_RUN_ID=" + engine.name}, engine.env(i)...)
				records := filepath.Join(artifacts, fmt.Sprint(i), "runs")
				results[i], errs[i] = runBinary(t, bin, dir, "fake", env, "-rook.dir="+records, "-rook.shard="+engine.flag, "-rook.shard-plan=.rook/shards.json")
			})
		}
		wg.Wait()
		for i := range 3 {
			res, records := results[i], filepath.Join(artifacts, fmt.Sprint(i), "runs")
			require.NoError(t, errs[i], res.all)
			assert.Contains(t, res.output["TestFake"], fmt.Sprintf("in shard %d/3", i+1), engine.name)
			shard, err := (store.Store{Dir: filepath.Join(records, "fake", engine.name)}).Run()
			require.NoError(t, err)
			assert.Equal(t, plan.Hash, shard.Shard.Plan)
			for _, e := range shard.Included {
				assert.Equal(t, i+1, plan.Agents["fake"][e.ScenarioID], "%s: shard %d ran %s", engine.name, i+1, e.ScenarioID)
			}
		}
		merged := t.TempDir()
		out.Reset()
		errOut.Reset()
		require.Equal(t, 0, run([]string{"report", "-merge", "-dir", merged, filepath.Join(artifacts, "0"), filepath.Join(artifacts, "1"), filepath.Join(artifacts, "2")}, &out, &errOut), errOut.String())
		m, err := (store.Store{Dir: filepath.Join(merged, "fake", engine.name)}).Run()
		require.NoError(t, err)
		assert.Equal(t, wholeRun.Included, m.Included, engine.name)
		assert.Empty(t, m.Skipped, engine.name)
	}

	// A shard that split by the id hash does not merge with a shard of the plan.
	artifacts := t.TempDir()
	for _, k := range []int{1, 3} {
		args := []string{"-rook.dir=" + filepath.Join(artifacts, fmt.Sprint(k), "runs"), "-rook.run-id=mixed", fmt.Sprintf("-rook.shard=%d/3", k)}
		if k == 1 {
			args = append(args, "-rook.shard-plan=.rook/shards.json")
		}
		_, err := runBinary(t, bin, dir, "fake", nil, args...)
		require.NoError(t, err)
	}
	errOut.Reset()
	assert.Equal(t, 1, run([]string{"report", "-merge", "-dir", t.TempDir(), filepath.Join(artifacts, "1"), filepath.Join(artifacts, "3")}, &out, &errOut))
	assert.Contains(t, errOut.String(), "has shard plan "+plan.Hash)
	assert.Contains(t, errOut.String(), "has none (the id hash): merge the shards of one run of one suite")
}
