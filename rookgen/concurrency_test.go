package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakehook"
)

// TestConcurrencyIsWhatTheProfileSays: the hooks themselves log when they start and end,
// and the execute hooks wait for each other (fakehook's meet: until n are alive), so what
// is shown is overlap, never elapsed time, and a loaded machine only makes it slower. At
// profile concurrency 8, with go test's default flags (-parallel is GOMAXPROCS, 2 on a
// 2-core machine) and again with -parallel=1 -cpu=1, exactly 8 execute hooks are alive at
// once (the first 8 wait for the eighth, and a ninth would be seen beside them); prepare
// ends before the first open; -rook.concurrency=auto lets more hooks that wait than there
// are cores be alive at once, up to the profile's 8; at concurrency 1 the scenarios run one
// after another in file order. How fast auto gets there is BenchmarkConcurrency's.
func TestConcurrencyIsWhatTheProfileSays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated package four times")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  prepare: {command: [%[1]q]}
  open: {command: [%[1]q]}
  execute: {command: [%[1]q]}
  close: {command: [%[1]q]}
hook_env: {FAKEHOOK: "1"}
concurrency: 8
`, os.Args[0]))
	var ids []string
	for i := 1; i <= 16; i++ {
		id := fmt.Sprintf("SC-%02d", i)
		ids = append(ids, id)
		helloScenario(t, dir, id)
	}
	rookgen(t, dir)

	var first []string // per-scenario hook actions for the next run
	run := func(execute string, args ...string) []fakehook.Span {
		t.Helper()
		spans := filepath.Join(t.TempDir(), "spans.jsonl")
		env := append([]string{goflags, "FAKEHOOK_SPANS=" + spans, "FAKEHOOK_EXECUTE=" + execute, "FAKEHOOK_MEET=" + t.TempDir()}, first...)
		first = nil
		res, err := goTest(t, dir, env, append([]string{"./scenarios/fake", "-rook.dir=" + filepath.Join(t.TempDir(), "runs")}, args...)...)
		require.NoError(t, err, res.all)
		got, err := fakehook.ReadSpans(spans)
		require.NoError(t, err)
		require.Len(t, got, 1+3*16, "prepare, then open, execute and close per scenario")
		return got
	}
	phase := func(spans []fakehook.Span, ph string) []fakehook.Span {
		return slices.DeleteFunc(slices.Clone(spans), func(s fakehook.Span) bool { return s.Phase != ph })
	}

	for _, flags := range [][]string{nil, {"-parallel=1", "-cpu=1"}} {
		spans := run("meet:8", flags...)
		alive := fakehook.MaxAlive(phase(spans, "execute"))
		t.Logf("go test %v: at most %d execute hooks alive at once", flags, alive)
		assert.Equal(t, 8, alive, "go test %v", flags)
		prepare := phase(spans, "prepare")[0]
		for _, o := range phase(spans, "open") {
			assert.False(t, o.Start.Before(prepare.End), "%s opened before prepare ended", o.Scenario)
		}
	}

	// -rook.concurrency=auto: hooks that wait take little CPU, so more of them are let in
	// than there are cores, and never more than the profile's 8. Auto starts at the cores
	// and moves when scenarios end: the first four end at once, and the rest wait for each
	// other, more of them than there are cores.
	cores := runtime.GOMAXPROCS(0)
	for i := 1; i <= 4; i++ {
		first = append(first, fmt.Sprintf("FAKEHOOK_EXECUTE_SC_%02d=sleep:300ms", i))
	}
	waits := fakehook.MaxAlive(phase(run(fmt.Sprintf("meet:%d", min(cores+1, 8)), "-rook.concurrency=auto"), "execute"))
	t.Logf("-rook.concurrency=auto on %d cores: at most %d waiting hooks at once", cores, waits)
	assert.Greater(t, waits, min(cores, 7), "waiting hooks: more than the cores")
	assert.LessOrEqual(t, waits, 8, "the profile's concurrency bounds it")

	spans := run("", "-rook.concurrency=1")
	assert.Equal(t, 1, fakehook.MaxAlive(spans), "one hook at a time")
	var order []string
	for _, s := range phase(spans, "open") {
		order = append(order, s.Scenario)
	}
	assert.Equal(t, ids, order, "file order")
}
