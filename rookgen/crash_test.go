package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestSIGKILLLosesNothing kills a running multi-scenario run with SIGKILL at random points,
// checks that every record it left parses, continues each run with -rook.run, and compares
// the verdicts with those of a run that was never interrupted.
func TestSIGKILLLosesNothing(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	if testing.Short() {
		t.Skip("builds a generated package and kills it")
	}
	dir := newModule(t)
	write(t, dir, "profiles/crash/crash.yaml", fmt.Sprintf(`id: crash
hooks:
  prepare: {command: [%[1]q]}
  open: {command: [%[1]q]}
  execute: {command: [%[1]q]}
  close: {command: [%[1]q]}
  collect: {command: [%[1]q]}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_EXECUTE: "sleep:40ms"
capabilities: {multi_turn: true, calls: true, usage: true}
concurrency: 2
`, os.Args[0]))
	write(t, dir, "scenarios/crash/SC-1.yaml", "id: SC-1\ngoal: one\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: one}}\n")
	write(t, dir, "scenarios/crash/SC-2.yaml", "id: SC-2\ngoal: two\nsetup_messages: [first, second]\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: two}}\n  - {statement: s, check: turns, params: {max: 3}}\n")
	write(t, dir, "scenarios/crash/SC-3.yaml", "id: SC-3\ngoal: three\nacceptance_criteria:\n  - {statement: s, check: not_contains, params: {text: three}}\n")
	write(t, dir, "scenarios/crash/SC-4.yaml", "id: SC-4\ngoal: four\nforbidden: [nothing]\nacceptance_criteria:\n  - {statement: s, check: not_called, params: {name: refund}}\n")
	rookgen(t, dir)
	bin := testBinary(t, dir, "crash")

	pkg := filepath.Join(dir, "scenarios", "crash")
	runBin := func(records string, args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append([]string{"-test.run=TestCrash", "-rook.dir=" + records}, args...)...)
		cmd.Dir = pkg
		return cmd
	}
	ref := filepath.Join(t.TempDir(), "ref")
	start := time.Now()
	refOut, _ := runBin(ref).CombinedOutput() // SC-3 fails on purpose
	whole := time.Since(start)
	want := verdicts(t, ref)
	require.Len(t, want, 4, "the uninterrupted run judged every scenario")

	killed := 0
	for seed := int64(1); seed <= 8; seed++ {
		rng := rand.New(rand.NewSource(seed))
		records := filepath.Join(t.TempDir(), fmt.Sprintf("seed-%d", seed))
		cmd := runBin(records)
		require.NoError(t, cmd.Start())
		// Wait until the run exists, then kill it at a random point of its life.
		require.Eventually(t, func() bool { return runID(records) != "" }, 20*time.Second, 2*time.Millisecond)
		time.Sleep(time.Duration(rng.Int63n(int64(whole))))
		require.NoError(t, cmd.Process.Kill())
		_ = cmd.Wait()
		if cmd.ProcessState.Success() {
			continue // it finished before the kill; nothing to recover
		}
		killed++
		id := runID(records)
		assertWholeRecords(t, filepath.Join(records, "crash", id))

		cont := runBin(records, "-rook.run="+id)
		out, _ := cont.CombinedOutput()
		got := verdicts(t, records)
		assert.Equal(t, want, got, "seed %d: the continued run disagrees with the uninterrupted one:\n%s\nthe uninterrupted run said:\n%s", seed, out, refOut)
		assert.Contains(t, string(out), "continuing in place")
		abandoned, _ := filepath.Glob(filepath.Join(records, "crash", id, "scenarios", "*", "abandoned", "*"))
		t.Logf("seed %d: killed after the run had started; %d attempt(s) kept aside as abandoned", seed, len(abandoned))
	}
	assert.GreaterOrEqual(t, killed, 4, "most kills should land while the run was going")
}

func runID(records string) string {
	entries, _ := os.ReadDir(filepath.Join(records, "crash"))
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(records, "crash", e.Name(), "run.yaml")); err == nil {
			return e.Name()
		}
	}
	return ""
}

// verdicts reads the one run under records: scenario to status and criterion statuses.
func verdicts(t *testing.T, records string) map[string]string {
	t.Helper()
	id := runID(records)
	require.NotEmpty(t, id)
	files, err := filepath.Glob(filepath.Join(records, "crash", id, "scenarios", "*", "verdict.yaml"))
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var v struct {
			Status   string `yaml:"status"`
			Criteria []struct {
				ID     string `yaml:"criterion_id"`
				Status string `yaml:"status"`
			} `yaml:"criteria"`
		}
		require.NoError(t, yaml.Unmarshal(data, &v), f)
		var parts []string
		for _, c := range v.Criteria {
			parts = append(parts, c.ID+"="+c.Status)
		}
		out[filepath.Base(filepath.Dir(f))] = v.Status + " " + strings.Join(parts, ",")
	}
	return out
}

// assertWholeRecords parses every record a killed run left (the hooks' own state aside).
func assertWholeRecords(t *testing.T, runDir string) {
	t.Helper()
	err := filepath.WalkDir(runDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "hook-state" || d.Name() == "run-state") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		switch filepath.Ext(path) {
		case ".json":
			var v any
			assert.NoError(t, json.Unmarshal(data, &v), "%s is not whole: %q", path, data)
		case ".yaml":
			var v any
			assert.NoError(t, yaml.Unmarshal(data, &v), "%s is not whole: %q", path, data)
		}
		// A temporary file (.name.tmpNNN) a kill interrupted is never read: its extension
		// is not a record's, so it is passed over here too.
		return nil
	})
	require.NoError(t, err)
}
