package rooktest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// fakeT records what the runtime does to a test: logs, errors, skips, attributes and
// subtests. Fatal and Skip end the test's goroutine, as testing's do.
type fakeT struct {
	name            string
	mu              sync.Mutex
	logs            []string
	errs            []string
	skip            string
	attrs           map[string]string
	failed, skipped bool
	subs            []*fakeT
	// selected, when set, says which subtests go test's -run would run, by their names
	// below the test's; the others are not run, and Run reports them passed, as testing
	// does.
	selected func(path string) bool
	path     string
}

func newFakeT(name string) *fakeT { return &fakeT{name: name, attrs: map[string]string{}} }

func (f *fakeT) Helper()           {}
func (f *fakeT) Name() string      { return f.name }
func (f *fakeT) Output() io.Writer { return fakeOut{f} }
func (f *fakeT) Fail()             { f.fail(f.lastLine()) }
func (f *fakeT) FailNow()          { f.Fail(); runtime.Goexit() }
func (f *fakeT) SkipNow()          { f.skipNow(f.lastLine()) }

// lastLine takes back the last line written to the output: what rooktest writes before
// Fail or SkipNow is the error or the skip message.
func (f *fakeT) lastLine() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.logs) == 0 {
		return ""
	}
	last := f.logs[len(f.logs)-1]
	f.logs = f.logs[:len(f.logs)-1]
	return last
}
func (f *fakeT) Parallel()                         {}
func (f *fakeT) Cleanup(func())                    {}
func (f *fakeT) Context() context.Context          { return context.Background() }
func (f *fakeT) Deadline() (time.Time, bool)       { return time.Time{}, false }
func (f *fakeT) Log(args ...any)                   { f.add(&f.logs, fmt.Sprint(args...)) }
func (f *fakeT) Logf(format string, args ...any)   { f.add(&f.logs, fmt.Sprintf(format, args...)) }
func (f *fakeT) Error(args ...any)                 { f.fail(fmt.Sprint(args...)) }
func (f *fakeT) Errorf(format string, args ...any) { f.fail(fmt.Sprintf(format, args...)) }
func (f *fakeT) Fatal(args ...any)                 { f.fail(fmt.Sprint(args...)); runtime.Goexit() }
func (f *fakeT) Fatalf(format string, args ...any) {
	f.fail(fmt.Sprintf(format, args...))
	runtime.Goexit()
}
func (f *fakeT) Skip(args ...any)                 { f.skipNow(fmt.Sprint(args...)) }
func (f *fakeT) Skipf(format string, args ...any) { f.skipNow(fmt.Sprintf(format, args...)) }
func (f *fakeT) Failed() bool                     { f.mu.Lock(); defer f.mu.Unlock(); return f.failed }
func (f *fakeT) Skipped() bool                    { f.mu.Lock(); defer f.mu.Unlock(); return f.skipped }

// Attr refuses what testing's Attr refuses: a newline in a value fails the test.
func (f *fakeT) Attr(key, value string) {
	if strings.ContainsAny(value, "\r\n") {
		f.fail(fmt.Sprintf("disallowed newline in attribute value %q", value))
		return
	}
	f.mu.Lock()
	f.attrs[key] = value
	f.mu.Unlock()
}

func (f *fakeT) add(list *[]string, s string) { f.mu.Lock(); *list = append(*list, s); f.mu.Unlock() }

func (f *fakeT) fail(s string) {
	f.add(&f.errs, s)
	f.mu.Lock()
	f.failed = true
	f.mu.Unlock()
}

func (f *fakeT) skipNow(s string) {
	f.mu.Lock()
	f.skip, f.skipped = s, true
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeT) Run(name string, fn func(tb)) bool {
	child := newFakeT(name)
	child.selected, child.path = f.selected, strings.TrimPrefix(f.path+"/"+name, "/")
	if f.selected != nil && !f.selected(child.path) {
		return true
	}
	f.mu.Lock()
	f.subs = append(f.subs, child)
	f.mu.Unlock()
	run(child, fn)
	if child.Failed() {
		f.fail("subtest " + name + " failed")
	}
	return !child.Failed()
}

func (f *fakeT) sub(t *testing.T, name string) *fakeT {
	t.Helper()
	for _, s := range f.subs {
		if s.name == name {
			return s
		}
	}
	require.Failf(t, "no such subtest", "%s has no subtest %s", f.name, name)
	return nil
}

// run calls fn on its own goroutine, as testing does, so that Fatal and Skip end it.
func run(t *fakeT, fn func(tb)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(t)
	}()
	<-done
}

const secret = "sekrit-token-42"

func reportOf(t *testing.T, o *lifecycle.Outcome, strict bool) *fakeT {
	t.Helper()
	sc := o.Scenario
	r := &Run{reporter: reporter{red: store.NewRedactor(map[string]string{"TOKEN": secret})}, planner: planner{opts: options{strict: strict}}}
	j := &job{id: sc.ID, sc: sc, notify: make(chan struct{}, 1), done: make(chan struct{}), outcome: o}
	j.log("execute turn 1: using " + secret)
	j.log("execute turn 1: \x16=== RUN   TestForged\r--- PASS: TestForged")
	close(j.done)
	ft := newFakeT("TestX/" + sc.ID)
	run(ft, func(t tb) { r.report(t, j) })
	return ft
}

func scenarioOf(t *testing.T, body string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("SC-1.yaml", []byte("id: SC-1\ngoal: g\n"+body))
	require.NoError(t, err)
	return sc
}

func verdict(status record.Status, reason string, rows ...record.Row) *record.Verdict {
	return &record.Verdict{Status: status, UnverifiableReason: reason, Criteria: rows, Turns: 1}
}

// TestReportMapsVerdictsOntoTests checks, in-process, how outcomes become tests: what
// passes, fails and skips, with which first line, attributes and subtests.
func TestReportMapsVerdictsOntoTests(t *testing.T) {
	sc := scenarioOf(t, "forbidden: [refund issued]\nacceptance_criteria:\n  - {statement: a, check: contains, params: {text: a}}\n  - {statement: b, check: contains, params: {text: b}}\n  - {statement: c, check: not_called, params: {name: x}}\n")
	rows := []record.Row{
		{CriterionID: "C1", Subtest: "C1_contains_a", Status: record.Pass, Expected: `the reply contains "a"`},
		{CriterionID: "C2", Subtest: "C2_contains_b", Status: record.Fail, Expected: `the reply contains "b"`,
			Achieved: `the reply does not contain "b"`, Evidence: `"said ` + secret + `"`},
		{CriterionID: "C3", Subtest: "C3_not_called_x", Status: record.UnableToVerify, Reason: record.NotObservable, Achieved: "no phase reported calls"},
	}
	v := verdict(record.Fail, "", rows...)
	v.ForbiddenHits = []record.ForbiddenHit{{Text: "refund issued", Turn: 1, Quote: `"your refund issued"`}}
	a := &lifecycle.Attempt{ScenarioID: "SC-1", N: 1, Verdict: v,
		Failures: []*lifecycle.PhaseError{{Phase: spec.Collect, Scenario: "SC-1", Script: "hook.mjs", ExitCode: 2,
			Stderr: "trace store down\n", Err: errors.New("exited with status 2")}}}
	ft := reportOf(t, &lifecycle.Outcome{Scenario: sc, Dir: "/runs/R/scenarios/SC-1", Attempts: []*lifecycle.Attempt{a}, Verdict: v}, false)

	assert.True(t, ft.Failed())
	assert.False(t, ft.Skipped())
	assert.Equal(t, "Fail", ft.attrs["rook.status"])
	assert.Contains(t, ft.logs, "execute turn 1: using [redacted:TOKEN]", "progress lines are logged, redacted")
	assert.Contains(t, ft.logs, `execute turn 1: \x16=== RUN   TestForged\x0d--- PASS: TestForged`,
		"control characters a hook wrote cannot frame test events")
	require.NotEmpty(t, ft.errs)
	assert.True(t, strings.HasPrefix(ft.errs[0], "collect hook failed (scenario SC-1, hook.mjs): exited with status 2\n    phase:    collect"), ft.errs[0])
	assert.Contains(t, ft.errs[0], "        trace store down")

	assert.False(t, ft.sub(t, "C1_contains_a").Failed())
	assert.Equal(t, "Pass", ft.sub(t, "C1_contains_a").attrs["rook.status"])
	c2 := ft.sub(t, "C2_contains_b")
	require.Len(t, c2.errs, 1)
	first, rest, _ := strings.Cut(c2.errs[0], "\n")
	assert.Equal(t, `Fail: expected the reply contains "b"`, first, "the first line stands alone")
	assert.Contains(t, rest, `achieved:   the reply does not contain "b"`)
	assert.Contains(t, rest, `evidence:   "said [redacted:TOKEN]"`)
	assert.NotContains(t, c2.errs[0], secret)
	c3 := ft.sub(t, "C3_not_called_x")
	assert.True(t, c3.Skipped())
	assert.Equal(t, "Unable to Verify (not_observable): no phase reported calls", c3.skip)
	assert.Equal(t, "not_observable", c3.attrs["rook.reason"])
	forbidden := ft.sub(t, "forbidden")
	require.Len(t, forbidden.errs, 1)
	assert.True(t, strings.HasPrefix(forbidden.errs[0], "Fail: forbidden text appeared in the agent's replies (1 hit(s))"))

	// Under -rook.strict, Unable to Verify fails.
	ft = reportOf(t, &lifecycle.Outcome{Scenario: sc, Attempts: []*lifecycle.Attempt{{ScenarioID: "SC-1", Verdict: verdict(record.UnableToVerify, record.NotObservable, rows[2])}},
		Verdict: verdict(record.UnableToVerify, record.NotObservable, rows[2])}, true)
	c3 = ft.sub(t, "C3_not_called_x")
	assert.True(t, c3.Failed())
	assert.Contains(t, c3.errs[0], "[failing under -rook.strict]")
}

// A scenario whose hooks left processes running is warned about, naming them (and the
// secret a command line held is redacted); under -rook.strict the warning fails it.
func TestReportLeftRunning(t *testing.T) {
	sc := scenarioOf(t, "acceptance_criteria:\n  - {statement: a, check: contains, params: {text: a}}\n")
	row := record.Row{CriterionID: "C1", Subtest: "C1_contains_a", Status: record.Pass, Expected: `the reply contains "a"`}
	left := []string{"execute turn 1: pid 4242: node server.js --token " + secret}
	for _, strict := range []bool{false, true} {
		v := verdict(record.Pass, "", row)
		ft := reportOf(t, &lifecycle.Outcome{Scenario: sc, Verdict: v,
			Attempts: []*lifecycle.Attempt{{ScenarioID: "SC-1", N: 1, Verdict: v, Left: left}}}, strict)
		want := "SC-1: hooks or MCP servers exited and left processes running, ended when each exited: execute turn 1: pid 4242: node server.js --token [redacted:TOKEN]"
		if strict {
			require.True(t, ft.Failed())
			require.Len(t, ft.errs, 1)
			assert.Contains(t, ft.errs[0], want)
			assert.Contains(t, ft.errs[0], "[failing under -rook.strict]")
		} else {
			assert.False(t, ft.Failed())
			assert.Contains(t, ft.logs, "rooktest: warning: "+want+"; a hook or server waits for what it starts, or stops it, before it exits")
		}
		assert.NotContains(t, strings.Join(append(ft.logs, ft.errs...), "\n"), secret)
	}
}

func TestReportOutcomesWithoutVerdicts(t *testing.T) {
	sc := scenarioOf(t, "acceptance_criteria:\n  - {statement: a, check: llm_judge}\n")
	utv := verdict(record.UnableToVerify, record.Undecidable, record.Row{CriterionID: "C1", Subtest: "C1_llm_judge_a", Status: record.UnableToVerify,
		Reason: record.Undecidable, Achieved: check.NoJudgeModel})
	tests := []struct {
		name    string
		o       *lifecycle.Outcome
		skipped string
		failed  string
	}{
		{"unable to verify", &lifecycle.Outcome{Scenario: sc, Attempts: []*lifecycle.Attempt{{ScenarioID: "SC-1", Verdict: utv}}, Verdict: utv},
			"Unable to Verify (undecidable)", ""},
		{"not judged", &lifecycle.Outcome{Scenario: sc, Attempts: []*lifecycle.Attempt{{ScenarioID: "SC-1", NotJudged: "not judged: continue with -rook.run=R"}}},
			"not judged: continue with -rook.run=R", ""},
		{"not run", &lifecycle.Outcome{Scenario: sc, NotRun: "the run halted: three failures"}, "not run: the run halted: three failures", ""},
		{"runner error", &lifecycle.Outcome{Scenario: sc, Err: errors.New("rooktest panicked while running scenario SC-1: boom")},
			"", "rooktest panicked while running scenario SC-1: boom"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ft := reportOf(t, tc.o, false)
			assert.Equal(t, tc.skipped, ft.skip)
			assert.Equal(t, tc.failed != "", ft.Failed())
			if tc.failed != "" {
				assert.Contains(t, ft.errs, tc.failed)
			}
		})
	}
}

// A compromise is never excused, whatever the selection: -run '^TestX$/^SC-1$/^attempt_1$'
// on a repeated scenario whose attempt 2 is compromised, or a criterion's subtest alone on
// a compromised attempt, still fails the scenario's test, naming the attempt; a plain Fail
// the selection leaves out stays out (running one criterion from an IDE).
func TestACompromiseIsNeverExcusedBySelection(t *testing.T) {
	sc := scenarioOf(t, "repeat: 2\nclass: adversarial\nacceptance_criteria:\n  - {statement: a, check: contains, params: {text: a}}\n")
	pass := verdict(record.Pass, "", record.Row{CriterionID: "C1", Subtest: "C1_contains_a", Status: record.Pass})
	no, yes := false, true
	pass.Attack = record.Attack{Compromised: &no, AttackConfidence: "High"}
	hit := verdict(record.Fail, "", record.Row{CriterionID: "C1", Subtest: "C1_contains_a", Status: record.Pass})
	hit.Attack = record.Attack{Compromised: &yes, MatchedSignal: "canary ROOK-CANARY-0123456789abcdef", AttackConfidence: "High"}
	whole := verdict(record.Fail, "")
	whole.Attempts = []record.AttemptStatus{{Attempt: 1, Status: record.Pass}, {Attempt: 2, Status: record.Fail}}
	o := &lifecycle.Outcome{Scenario: sc, Verdict: whole, Attempts: []*lifecycle.Attempt{{ScenarioID: "SC-1", N: 1, Verdict: pass}, {ScenarioID: "SC-1", N: 2, Verdict: hit}}}
	for _, tc := range []struct {
		name   string
		only   func(string) bool
		failed bool
	}{
		{"every subtest", nil, true},
		{"attempt 1 alone", func(p string) bool { return strings.HasPrefix(p, "attempt_1") }, true},
		{"attempt 2's criterion alone", func(p string) bool { return p == "attempt_2" || p == "attempt_2/C1_contains_a" }, true},
		{"nothing below the scenario", func(string) bool { return false }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ft := newFakeT("TestX/SC-1")
			ft.selected = tc.only
			r := &Run{reporter: reporter{red: store.NewRedactor(nil)}}
			j := &job{id: sc.ID, sc: sc, notify: make(chan struct{}, 1), done: make(chan struct{}), outcome: o}
			close(j.done)
			run(ft, func(t tb) { r.report(t, j) })
			assert.Equal(t, tc.failed, ft.Failed(), "%v", ft.errs)
			if tc.only != nil && !tc.only("attempt_2") {
				assert.Contains(t, strings.Join(ft.errs, "\n"), "SC-1 attempt 2 is compromised (canary ROOK-CANARY-0123456789abcdef), which no selection excuses")
			}
		})
	}
	// A Fail that is no compromise, with its failing attempt left out, is the selection's.
	plain := *hit
	plain.Attack = record.Attack{}
	plain.Criteria = []record.Row{{CriterionID: "C1", Subtest: "C1_contains_a", Status: record.Fail}}
	o2 := &lifecycle.Outcome{Scenario: scenarioOf(t, "repeat: 2\nacceptance_criteria:\n  - {statement: a, check: contains, params: {text: a}}\n"), Verdict: whole,
		Attempts: []*lifecycle.Attempt{{ScenarioID: "SC-1", N: 1, Verdict: verdict(record.Pass, "", record.Row{CriterionID: "C1", Subtest: "C1_contains_a", Status: record.Pass})}, {ScenarioID: "SC-1", N: 2, Verdict: &plain}}}
	ft := newFakeT("TestX/SC-1")
	ft.selected = func(p string) bool { return strings.HasPrefix(p, "attempt_1") }
	r := &Run{reporter: reporter{red: store.NewRedactor(nil)}}
	j := &job{id: "SC-1", sc: o2.Scenario, notify: make(chan struct{}, 1), done: make(chan struct{}), outcome: o2}
	close(j.done)
	run(ft, func(t tb) { r.report(t, j) })
	assert.False(t, ft.Failed(), "%v", ft.errs)
}

func TestReportRepeatedScenario(t *testing.T) {
	sc := scenarioOf(t, "repeat: 2\nacceptance_criteria:\n  - {statement: a, check: contains, params: {text: a}}\n")
	pass := verdict(record.Pass, "", record.Row{CriterionID: "C1", Subtest: "C1_contains_a", Status: record.Pass})
	fail := verdict(record.Fail, "", record.Row{CriterionID: "C1", Subtest: "C1_contains_a", Status: record.Fail, Expected: `the reply contains "a"`})
	whole := verdict(record.Fail, "")
	whole.Flaky = true
	whole.Attempts = []record.AttemptStatus{{Attempt: 1, Status: record.Pass}, {Attempt: 2, Status: record.Fail}}
	ft := reportOf(t, &lifecycle.Outcome{Scenario: sc, Verdict: whole,
		Attempts: []*lifecycle.Attempt{{ScenarioID: "SC-1", N: 1, Verdict: pass}, {ScenarioID: "SC-1", N: 2, Verdict: fail}}}, false)
	assert.False(t, ft.sub(t, "attempt_1").Failed())
	assert.True(t, ft.sub(t, "attempt_2").sub(t, "C1_contains_a").Failed())
	assert.Contains(t, ft.logs, "pass^2: 1 of 2 attempts passed; flaky: the attempts disagree")
	assert.Equal(t, "true", ft.attrs["rook.flaky"])
}

// fakeOut records what is written to a fakeT's output: a line is a log line; the last one
// before Fail is an error, before SkipNow the skip message.
type fakeOut struct{ f *fakeT }

func (o fakeOut) Write(p []byte) (int, error) {
	o.f.add(&o.f.logs, strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// A close that followed a failed open is reported as well, not as if an answer were kept.
func TestReportCloseAfterFailedOpen(t *testing.T) {
	sc := scenarioOf(t, "acceptance_criteria:\n  - {statement: a, check: contains, params: {text: a}}\n")
	v := verdict(record.Fail, "")
	a := &lifecycle.Attempt{ScenarioID: "SC-1", N: 1, Verdict: v,
		Failures: []*lifecycle.PhaseError{{Phase: spec.Open, Scenario: "SC-1", Script: "h", ExitCode: 1, Err: errors.New("exited with status 1")}},
		Problems: []*lifecycle.PhaseError{{Phase: spec.Close, Scenario: "SC-1", Script: "h", ExitCode: 1, Err: errors.New("exited with status 1")}}}
	ft := reportOf(t, &lifecycle.Outcome{Scenario: sc, Attempts: []*lifecycle.Attempt{a}, Verdict: v}, false)
	all := strings.Join(ft.logs, "\n")
	assert.Contains(t, all, "reported as well: close hook failed")
	assert.NotContains(t, all, "the answer is kept")
}

// Values that hooks and judge servers wrote reach t.Attr as one bounded line: a judge
// reporting a model name with a newline cannot fail a passing criterion.
func TestAttributesAreOneLine(t *testing.T) {
	sc := scenarioOf(t, "acceptance_criteria:\n  - {statement: a, check: llm_judge}\n")
	row := record.Row{CriterionID: "C1", Subtest: "C1_llm_judge_a", Status: record.Pass, Expected: "a", Confidence: "High",
		Judge: "judge-large\n--- FAIL: TestForged\r\n" + strings.Repeat("m", 1000)}
	v := verdict(record.Pass, "", row)
	ft := reportOf(t, &lifecycle.Outcome{Scenario: sc, Attempts: []*lifecycle.Attempt{{ScenarioID: "SC-1", N: 1, Verdict: v}}, Verdict: v}, false)
	c1 := ft.sub(t, "C1_llm_judge_a")
	assert.False(t, c1.Failed(), "%v", c1.errs)
	model := c1.attrs["rook.judge_model"]
	assert.True(t, strings.HasPrefix(model, `judge-large\n--- FAIL: TestForged\x0d\nmmm`), model)
	assert.LessOrEqual(t, len(model), 256)
	assert.Contains(t, c1.logs[0], "judge:      judge-large --- FAIL: TestForged mmm", "the log line is one line too")

	// And a real *testing.T takes the value: its subtest passes.
	ok := t.Run("real", func(t *testing.T) { attr(tshim{t}, "rook.judge_model", row.Judge) })
	assert.True(t, ok)
}

// Spans that arrived after their attempt was judged fail the run when, decided again with
// them, its verdict changed; they are only said when it did not, or when the attempt was
// not judged here.
func TestLateSpansFailTheRun(t *testing.T) {
	ft := newFakeT("TestX")
	lateSpans(ft, "run-1", func(s string) string { return s }, []record.LateSpans{
		{ScenarioID: "SC-1", Attempt: 1, Spans: 2, Names: []string{"invoke_agent", "execute_tool issue_refund"}, Tools: []string{"issue_refund"},
			Was: record.Pass, Now: record.Fail, Changed: []string{"C2 (not_called): Pass → Fail"}},
		{ScenarioID: "SC-2", Attempt: 1, Spans: 1, Names: []string{"GET /health"}, Was: record.Pass, Now: record.Pass},
		{ScenarioID: "SC-3", Attempt: 2, Spans: 1, Names: []string{"chat"}, NotDecided: "it was not judged in this process: they are in its trace for the judge"},
	})
	require.True(t, ft.Failed())
	require.Len(t, ft.errs, 1)
	assert.Contains(t, ft.errs[0], "2 span(s) of SC-1 attempt 1 arrived after it was judged (invoke_agent, execute_tool issue_refund); decided again with them, SC-1 is Fail, not Pass (C2 (not_called): Pass → Fail)")
	logs := strings.Join(ft.logs, "\n")
	assert.Contains(t, logs, "1 span(s) of SC-2 attempt 1 arrived after it was judged (GET /health); decided again with them, it is still Pass")
	assert.Contains(t, logs, "SC-3 attempt 2 arrived after it was judged (chat), and were added to its trace; it was not decided again: it was not judged in this process")
}

// ROOK_JUDGE_URL=none is a run without a judge on purpose: under -rook.strict an llm_judge
// row left undecided for want of a judge is a skip saying so, and nothing else is excused:
// a row that could not be observed still fails, and without none the same row fails too.
func TestNoJudgeOnPurposeUnderStrict(t *testing.T) {
	sc := scenarioOf(t, "acceptance_criteria:\n  - {statement: a, check: llm_judge}\n  - {statement: b, check: called, params: {name: x}}\n")
	noJudge := record.Row{CriterionID: "C1", Subtest: "C1_llm_judge_a", Status: record.UnableToVerify, Reason: record.Undecidable, Achieved: check.NoJudgeModel}
	unseen := record.Row{CriterionID: "C2", Subtest: "C2_called_x", Status: record.UnableToVerify, Reason: record.NotObservable, Achieved: "no calls reported"}
	pass := record.Row{CriterionID: "C2", Subtest: "C2_called_x", Status: record.Pass}
	report := func(none bool, rows ...record.Row) *fakeT {
		v := verdict(record.UnableToVerify, record.Undecidable, rows...)
		o := &lifecycle.Outcome{Scenario: sc, Attempts: []*lifecycle.Attempt{{ScenarioID: "SC-1", Verdict: v}}, Verdict: v}
		r := &Run{reporter: reporter{red: store.NewRedactor(nil), noJudge: none}, planner: planner{opts: options{strict: true}}}
		j := &job{id: sc.ID, sc: sc, notify: make(chan struct{}, 1), done: make(chan struct{}), outcome: o}
		close(j.done)
		ft := newFakeT("TestX/" + sc.ID)
		run(ft, func(t tb) { r.report(t, j) })
		return ft
	}
	ft := report(true, noJudge, pass)
	assert.False(t, ft.Failed(), "%v", ft.errs)
	assert.Contains(t, ft.sub(t, "C1_llm_judge_a").skip, "ROOK_JUDGE_URL=none: this run has no judge, on purpose")
	assert.True(t, report(false, noJudge, pass).Failed(), "without none, -rook.strict fails on it")
	assert.True(t, report(true, noJudge, unseen).Failed(), "none excuses the judge's rows alone")
}
