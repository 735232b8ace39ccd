package lifecycle_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

func sel(t *testing.T, phases string, p *spec.Profile, continuing bool) lifecycle.Selection {
	t.Helper()
	s, err := lifecycle.ParseSelection(phases, "", p, continuing)
	require.NoError(t, err)
	return s
}

func TestParseSelection(t *testing.T) {
	f := newRun(t, nil, "hooks:\n  open: {command: [BIN]}\n  execute: {command: [BIN]}\n  close: {command: [BIN]}\n  collect: {command: [BIN]}\n")
	p := f.cfg.Profile
	tests := []struct {
		phases, skip string
		continuing   bool
		want, err    string
	}{
		{phases: "close,open,execute", want: "open,execute,close"},
		{phases: "prepare,open,execute,close", want: "prepare,open,execute,close", err: ""},
		{skip: "collect,judge", want: "prepare,open,execute,close"},
		{phases: "collect,judge", continuing: true, want: "collect,judge"},
		{phases: "collect,judge", err: "-rook.phases=collect,judge starts after open, execute and close, which a new run has not run; continue an earlier run with -rook.run=<run-id>"},
		{phases: "open,close", err: "-rook.phases=open,close leaves a hole: profile fake defines execute"},
		{phases: "prepare,execute", err: "-rook.phases=prepare,execute leaves a hole: profile fake defines open"},
		{phases: "open,execute", skip: "judge", err: "cannot be combined"},
		{phases: "opne", err: `unknown phase "opne"`},
		{skip: "prepare,open,execute,close,collect,judge", err: "leaves no phase to run"},
	}
	for _, tc := range tests {
		got, err := lifecycle.ParseSelection(tc.phases, tc.skip, p, tc.continuing)
		if tc.err != "" {
			require.Empty(t, tc.want, "a row that fails selects nothing: %+v", tc)
			require.Error(t, err, "%+v", tc)
			assert.Contains(t, err.Error(), tc.err)
			continue
		}
		require.NoError(t, err, "%+v", tc)
		assert.Equal(t, tc.want, got.String())
	}
	// prepare is not defined by this profile, so prepare,open has no hole: prepare is no prerequisite.
	_, err := lifecycle.ParseSelection("open,execute", "", p, false)
	assert.NoError(t, err)
}

func TestContinueRunsOnlyWhatIsLeft(t *testing.T) {
	f := newRun(t, nil, "")
	p := f.cfg.Profile
	sc := parseScenario(t, "goal: g\nsetup_messages: [one]\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: g}}\n")

	// First process: the agent runs; evidence is collected later.
	f.restart(t, sel(t, "prepare,open,execute,close", p, false))
	first := f.run
	require.Nil(t, first.Prepare(context.Background(), f.logs.add))
	o := first.Scenario(context.Background(), sc, f.logs.add)
	require.False(t, o.Judged())
	assert.Contains(t, o.Attempts[0].NotJudged, "not judged: continue with -rook.run="+first.ID)
	assert.NoFileExists(t, filepath.Join(o.Dir, "verdict.yaml"))

	// Second process: collect and judge, in place.
	r := f.again(t, sel(t, "collect,judge", p, true))
	require.Nil(t, r.Prepare(context.Background(), f.logs.add))
	o = r.Scenario(context.Background(), sc, f.logs.add)
	require.True(t, o.Judged())
	assert.Equal(t, record.Pass, o.Verdict.Status)
	assert.Equal(t, []string{"prepare", "open", "execute#1", "execute#2", "close", "collect"}, phases(f.calls(t)),
		"nothing ran twice")
	calls := f.calls(t)
	assert.Equal(t, "conv-1", calls[len(calls)-1].Env["ROOK_CONVERSATION"], "the conversation came back from disk")
	assert.Equal(t, calls[1].Env["ROOK_STATE_DIR"], calls[len(calls)-1].Env["ROOK_STATE_DIR"])
	run := readYAML(t, filepath.Join(r.Dir, "run.yaml"))
	assert.Equal(t, []any{"prepare", "open", "execute", "close", "collect", "judge"}, run["phases_run"])

	// A third process has nothing left to do.
	r = f.again(t, lifecycle.All())
	require.Nil(t, r.Prepare(context.Background(), f.logs.add))
	o = r.Scenario(context.Background(), sc, f.logs.add)
	assert.Equal(t, record.Pass, o.Verdict.Status)
	assert.Len(t, f.calls(t), 6)
	_, err := r.Finish(context.Background(), time.Now())
	require.NoError(t, err)
}

func TestCollectRetriedLater(t *testing.T) {
	f := newRun(t, nil, "")
	f.run = f.again(t, lifecycle.All(), "FAKEHOOK_COLLECT=exit:2:trace pipeline not ready")
	sc := parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: json_path, params: {in: collect, path: $.ready, equals: true}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.Len(t, o.Attempts[0].Failures, 1)
	assert.Equal(t, spec.Collect, o.Attempts[0].Failures[0].Phase)
	assert.Equal(t, record.Fail, o.Verdict.Status, "a failed collect fails its scenario")
	assert.FileExists(t, filepath.Join(o.Dir, "response.json"), "and keeps everything")

	r := f.again(t, sel(t, "collect,judge", f.cfg.Profile, true), `FAKEHOOK_COLLECT=json:{"ready": true}`)
	o = r.Scenario(context.Background(), sc, f.logs.add)
	assert.Empty(t, o.Attempts[0].Failures)
	assert.Equal(t, record.Pass, o.Verdict.Status)
	assert.Equal(t, []string{"open", "execute#1", "close", "collect", "collect"}, phases(f.calls(t)), "only collect ran again")
}

func TestInterruptedTurnsStartAgainFromOpen(t *testing.T) {
	f := newRun(t, nil, "")
	sc := parseScenario(t, "goal: g\nsetup_messages: [one, two]\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: g}}\n")
	f.restart(t, sel(t, "prepare,open,execute", f.cfg.Profile, false))
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	// Make the records look as a process killed during turn 2 leaves them.
	path := filepath.Join(o.Dir, "hooks.json")
	var h map[string]any
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &h))
	exec := h["phases"].(map[string]any)["execute"].(map[string]any)
	exec["turns"] = exec["turns"].([]any)[:1]
	h["in_flight"] = map[string]any{"phase": "execute", "turn": 2, "at": time.Now().Format(time.RFC3339Nano)}
	data, _ = json.Marshal(h)
	require.NoError(t, os.WriteFile(path, data, 0o644))

	r := f.again(t, lifecycle.All())
	o = r.Scenario(context.Background(), sc, f.logs.add)
	a := o.Attempts[0]
	assert.Equal(t, record.Pass, o.Verdict.Status)
	assert.Equal(t, filepath.Join(o.Dir, "abandoned", "1"), a.Abandoned)
	assert.FileExists(t, filepath.Join(a.Abandoned, "hooks.json"), "the partial records are kept aside")
	assert.DirExists(t, filepath.Join(a.Abandoned, "hook-state"))
	assert.Equal(t, []string{"open", "execute#1", "execute#2", "execute#3", "open", "execute#1", "execute#2", "execute#3", "close", "collect"}, phases(f.calls(t)))
}

func TestContinueRefusesAChangedScenario(t *testing.T) {
	f := newRun(t, nil, "")
	sc := parseScenario(t, "goal: g\n")
	f.run.Scenario(context.Background(), sc, f.logs.add)
	edited := parseScenario(t, "goal: something else\n")
	o := f.again(t, lifecycle.All()).Scenario(context.Background(), edited, f.logs.add)
	assert.Contains(t, o.NotRun, "SC-1 changed since run "+f.run.ID+" recorded it")
}

func TestHaltAfterThreeTransportFailures(t *testing.T) {
	f := newRun(t, nil, "")
	r := f.again(t, lifecycle.All(), "FAKEHOOK_EXECUTE=exit:1:connection refused")
	var outcomes []*lifecycle.Outcome
	for _, id := range []string{"SC-1", "SC-2", "SC-3", "SC-4"} {
		s, err := scenario.Parse(id+".yaml", []byte("id: "+id+"\ngoal: g\n"))
		require.NoError(t, err)
		outcomes = append(outcomes, r.Scenario(context.Background(), s, f.logs.add))
	}
	for _, o := range outcomes[:3] {
		assert.Equal(t, record.Fail, o.Verdict.Status)
	}
	assert.Contains(t, outcomes[3].NotRun, "the run halted: 3 execute failures of the transport kind in a row")
	halted, why := r.Halted()
	assert.True(t, halted)
	assert.Contains(t, why, "connection refused")
	_, err := r.Finish(context.Background(), time.Now())
	require.NoError(t, err)
	run := readYAML(t, filepath.Join(r.Dir, "run.yaml"))
	assert.Equal(t, true, run["halted"])
	assert.Contains(t, run["halt_reason"], "3 execute failures")
	assert.DirExists(t, outcomes[2].Dir, "what was recorded stays")
}

func TestRepeatIsPassToTheK(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": "reply:session $ROOK_SESSION"}, "")
	sc := parseScenario(t, "goal: g\nrepeat: 3\nacceptance_criteria:\n  - {statement: s, check: regex, params: {pattern: '/[13]$'}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.Len(t, o.Attempts, 3)
	assert.Equal(t, []record.Status{record.Pass, record.Fail, record.Pass}, []record.Status{o.Attempts[0].Verdict.Status, o.Attempts[1].Verdict.Status, o.Attempts[2].Verdict.Status})
	assert.Equal(t, record.Fail, o.Verdict.Status, "one failed attempt fails the scenario")
	assert.True(t, o.Verdict.Flaky)
	sessions := map[string]bool{}
	states := map[string]bool{}
	for _, c := range f.calls(t) {
		if c.Phase == "open" {
			sessions[c.Env["ROOK_SESSION"]] = true
			states[c.Env["ROOK_STATE_DIR"]] = true
		}
	}
	assert.Len(t, sessions, 3, "each attempt is its own open..collect")
	assert.Len(t, states, 3, "each attempt has its own state folder")
	v := readYAML(t, filepath.Join(o.Dir, "verdict.yaml"))
	assert.Equal(t, "Fail", v["status"])
	assert.Equal(t, true, v["flaky"])
	assert.Equal(t, 2, v["attempts_passed"])
	assert.Len(t, v["attempts"], 3)
	assert.FileExists(t, filepath.Join(o.Dir, "attempts", "2", "verdict.yaml"))
}

func TestResumeCarriesUnchangedWork(t *testing.T) {
	f := newRun(t, nil, "")
	one := parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: g}}\n")
	two, err := scenario.Parse("SC-2.yaml", []byte("id: SC-2\ngoal: h\n"))
	require.NoError(t, err)
	f.run.Scenario(context.Background(), one, f.logs.add)
	f.run.Scenario(context.Background(), two, f.logs.add)
	_, err = f.run.Finish(context.Background(), time.Now())
	require.NoError(t, err)
	before := len(f.calls(t))

	prior, err := lifecycle.LoadPrior(f.cfg.RecordsRoot, "agent", f.run.ID)
	require.NoError(t, err)
	cfg := f.cfg
	cfg.Included = []record.Entry{{ScenarioID: "SC-1"}, {ScenarioID: "SC-2"}}
	r, err := lifecycle.New(cfg, time.Now())
	require.NoError(t, err)
	require.NoError(t, r.SetResumeFrom(prior.ID))
	o, ok := r.Carry(prior, one)
	require.True(t, ok, "SC-1 is unchanged")
	assert.Equal(t, f.run.ID, o.CarriedFrom)
	assert.Equal(t, record.Pass, o.Verdict.Status)
	assert.Equal(t, "C1_contains_g", o.Attempts[0].Verdict.Criteria[0].Subtest)
	edited, err := scenario.Parse("SC-2.yaml", []byte("id: SC-2\ngoal: edited\n"))
	require.NoError(t, err)
	_, ok = r.Carry(prior, edited)
	assert.False(t, ok, "an edited scenario runs again")
	r.Scenario(context.Background(), edited, f.logs.add)
	assert.Len(t, f.calls(t), before+4, "only the edited scenario ran")
	rep, err := r.Finish(context.Background(), time.Now())
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Totals.CarriedForward)
	assert.Equal(t, 2, rep.Totals.Executed)
	run := readYAML(t, filepath.Join(r.Dir, "run.yaml"))
	assert.Equal(t, prior.ID, run["resume_from"])
	assert.Equal(t, []any{"SC-1"}, run["carried"])
}

func TestResumeRefusesCorruptRecords(t *testing.T) {
	f := newRun(t, nil, "")
	o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\n"), f.logs.add)
	require.NoError(t, os.WriteFile(filepath.Join(o.Dir, "verdict.yaml"), []byte("status: [unclosed"), 0o644))
	_, err := lifecycle.LoadPrior(f.cfg.RecordsRoot, "agent", f.run.ID)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "its records are not whole, so nothing is carried")
	assert.Contains(t, err.Error(), filepath.Join(o.Dir, "verdict.yaml")+" is corrupt")
	_, err = lifecycle.LoadPrior(f.cfg.RecordsRoot, "agent", "no-such-run")
	assert.ErrorContains(t, err, "resume from run no-such-run")
}

func TestDelayCountsFromTheRecordedEnd(t *testing.T) {
	f := newRun(t, nil, "hooks:\n  execute: {command: [BIN]}\n  close: {command: [BIN]}\n  collect: {command: [BIN], delay_seconds: 0.3}\n")
	f.restart(t, sel(t, "execute,close", f.cfg.Profile, false))
	sc := parseScenario(t, "goal: g\n")
	f.run.Scenario(context.Background(), sc, f.logs.add)
	time.Sleep(350 * time.Millisecond) // longer than the delay: a later collect waits nothing
	r := f.again(t, sel(t, "collect,judge", f.cfg.Profile, true))
	o := r.Scenario(context.Background(), sc, f.logs.add)
	require.True(t, o.Judged())
	assert.NotContains(t, f.logs.all(), "collect: waiting")
}

// A recorded end in the future (clock skew, or a time a hook wrote into hooks.json) never
// makes a delay wait the skew: a delay waits at most delay_seconds of this process's own
// clock.
func TestDelayNeverWaitsARecordedFuture(t *testing.T) {
	f := newRun(t, nil, "hooks:\n  execute: {command: [BIN]}\n  close: {command: [BIN]}\n  collect: {command: [BIN], delay_seconds: 0.3}\n")
	f.restart(t, sel(t, "execute,close", f.cfg.Profile, false))
	sc := parseScenario(t, "goal: g\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	path := filepath.Join(o.Dir, "hooks.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var hooks map[string]any
	require.NoError(t, json.Unmarshal(data, &hooks))
	hooks["phases"].(map[string]any)["close"].(map[string]any)["ended_at"] = time.Now().Add(time.Hour).UTC().Format(time.RFC3339Nano)
	data, err = json.Marshal(hooks)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))

	r := f.again(t, sel(t, "collect,judge", f.cfg.Profile, true))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	o = r.Scenario(ctx, sc, f.logs.add)
	require.True(t, o.Judged(), f.logs.all())
	assert.Less(t, time.Since(start), 5*time.Second, "the delay waited the recorded skew")
}

func TestContinueRunsAFailedPrepareAgainFirst(t *testing.T) {
	f := newRun(t, nil, "")
	p := f.cfg.Profile
	sc := parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: g}}\n")

	// First process: prepare fails, so no scenario runs.
	f.cfg.Env = append(f.cfg.Env, "FAKEHOOK_PREPARE=exit:4:login refused")
	f.restart(t, nil)
	first := f.run
	perr := first.Prepare(context.Background(), f.logs.add)
	require.NotNil(t, perr)
	require.NoError(t, os.WriteFile(filepath.Join(first.PrepareStateDir, "token"), []byte("stale"), 0o644))
	_, err := first.Finish(context.Background(), time.Now())
	require.NoError(t, err)

	// Second process selects everything but prepare: prepare runs again first anyway.
	r := f.again(t, sel(t, "open,execute,close,collect,judge", p, true), "FAKEHOOK_PREPARE=json:{}")
	require.Nil(t, r.Prepare(context.Background(), f.logs.add))
	assert.Contains(t, f.logs.all(), "prepare: did not complete in run "+first.ID+"; running it again first")
	o := r.Scenario(context.Background(), sc, f.logs.add)
	require.True(t, o.Judged())
	assert.Equal(t, record.Pass, o.Verdict.Status)
	assert.Equal(t, []string{"prepare", "prepare", "open", "execute#1", "close", "collect"}, phases(f.calls(t)))
	rep, err := r.Finish(context.Background(), time.Now())
	require.NoError(t, err)
	assert.Equal(t, "ok", rep.Prepare.Status)
	assert.Equal(t, 2, rep.Prepare.Attempts)

	var kept record.PhaseRecord
	data, err := os.ReadFile(filepath.Join(r.Dir, "prepare", "abandoned", "1", "prepare.yaml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &kept))
	assert.False(t, kept.OK)
	assert.Equal(t, 4, kept.ExitCode)
	assert.FileExists(t, filepath.Join(r.Dir, "prepare", "abandoned", "1", "hook-state", "token"), "the failed prepare's state is kept aside")
	assert.NoFileExists(t, filepath.Join(r.PrepareStateDir, "token"), "the new prepare starts with a fresh state folder")

	var rf record.Run
	data, err = os.ReadFile(filepath.Join(r.Dir, "run.yaml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &rf))
	assert.True(t, rf.Prepare.OK)
	assert.Equal(t, 2, rf.PrepareAttempts)
	assert.Contains(t, rf.PhasesRun, "prepare")
}

func TestCarryKeepsAttemptsAndIsWholeOrNothing(t *testing.T) {
	f := newRun(t, nil, "")
	rep := parseScenario(t, "goal: g\nrepeat: 2\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: g}}\n")
	f.run.Scenario(context.Background(), rep, f.logs.add)
	_, err := f.run.Finish(context.Background(), time.Now())
	require.NoError(t, err)
	prior, err := lifecycle.LoadPrior(f.cfg.RecordsRoot, "agent", f.run.ID)
	require.NoError(t, err)

	r, err := lifecycle.New(f.cfg, time.Now())
	require.NoError(t, err)
	o, ok := r.Carry(prior, rep)
	require.True(t, ok)
	require.Len(t, o.Attempts, 2, "a carried repeat keeps its attempt_N subtests")
	for i, a := range o.Attempts {
		assert.Equal(t, i+1, a.N)
		assert.Equal(t, record.Pass, a.Verdict.Status)
		assert.Equal(t, "C1_contains_g", a.Verdict.Criteria[0].Subtest)
	}

	// A folder already there is never half-overwritten, and no temporary copy is left.
	r2, err := lifecycle.New(f.cfg, time.Now().Add(time.Second))
	require.NoError(t, err)
	busy := filepath.Join(r2.Dir, "scenarios", "SC-1")
	require.NoError(t, os.MkdirAll(busy, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(busy, "hooks.json"), []byte(`{"version": 1}`), 0o644))
	_, ok = r2.Carry(prior, rep)
	assert.False(t, ok)
	entries, err := os.ReadDir(filepath.Join(r2.Dir, "scenarios"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the scenario's own folder: %v", entries)
	assert.NoFileExists(t, filepath.Join(busy, "verdict.yaml"))
}

// A verdict.yaml no judge wrote from the current hooks.json is judged again, never
// trusted: a hook can write files next to its state folder.
func TestJudgeNeverTrustsAForgedVerdict(t *testing.T) {
	f := newRun(t, nil, "")
	p := f.cfg.Profile
	sc := parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: never said}}\n")
	o := f.run.Scenario(context.Background(), sc, f.logs.add)
	require.Equal(t, record.Fail, o.Verdict.Status)
	forged := "scenario_id: SC-1\nstatus: Pass\ncriteria: []\n"
	require.NoError(t, os.WriteFile(filepath.Join(o.Dir, "verdict.yaml"), []byte(forged), 0o644))

	r := f.again(t, sel(t, "judge", p, true))
	o = r.Scenario(context.Background(), sc, f.logs.add)
	require.True(t, o.Judged())
	assert.Equal(t, record.Fail, o.Verdict.Status, "judged again from hooks.json")
	v := readYAML(t, filepath.Join(o.Dir, "verdict.yaml"))
	assert.Equal(t, "Fail", v["status"])
	assert.Regexp(t, `^[0-9a-f]{64}$`, v["hooks_sha256"])
}

// Two processes continuing one run at once would run its hooks twice: the second is
// refused, naming the holder; once the first ends, the run can be continued.
func TestContinueLocksTheRun(t *testing.T) {
	f := newRun(t, nil, "")
	id := f.run.ID
	_, err := lifecycle.Continue(f.cfg, id, time.Now())
	require.Error(t, err)
	assert.Contains(t, err.Error(), fmt.Sprintf("run %s is being written by another process (pid %d)", id, os.Getpid()))
	f.run.Close()
	r, err := lifecycle.Continue(f.cfg, id, time.Now())
	require.NoError(t, err)
	r.Close()
}

// A hook's end is written with the next hook's start: every hook finds the ones before it
// recorded and itself marked in flight, so a process that dies during any hook leaves
// every earlier one on disk.
func TestEachHookStartsWithTheEarlierOnesRecorded(t *testing.T) {
	script := strconv.Quote(`cp "$ROOK_STATE_DIR/../hooks.json" "$ROOK_STATE_DIR/../seen-$0$ROOK_TURN.json"
case $0 in open) echo '{"conversation": "c1"}';; execute) echo '{"output": "ok"}';; esac`)
	hook := "{command: [sh, -c, " + script + "]}"
	f := newRun(t, nil, "hooks:\n  open: "+hook+"\n  execute: "+hook+"\n  close: "+hook+"\n  collect: "+hook+"\n")
	o := f.run.Scenario(context.Background(), parseScenario(t, "goal: g\nsetup_messages: [one]\n"), f.logs.add)
	require.True(t, o.Judged(), f.logs.all())

	type seen struct {
		InFlight *struct {
			Phase string
			Turn  int
		} `json:"in_flight"`
		Phases map[string]struct {
			OK    bool
			Turns []any
		}
	}
	read := func(name string) seen {
		var s seen
		require.NoError(t, json.Unmarshal(readFile(t, filepath.Join(o.Dir, name)), &s), name)
		return s
	}
	recorded := func(s seen) []string {
		var names []string
		for _, ph := range []string{"open", "execute", "close", "collect"} {
			if p, ok := s.Phases[ph]; ok && p.OK {
				names = append(names, fmt.Sprintf("%s(%d)", ph, len(p.Turns)))
			}
		}
		return names
	}
	for _, tc := range []struct {
		file, phase string
		turn        int
		recorded    []string
	}{
		{"seen-open.json", "open", 0, nil},
		{"seen-execute1.json", "execute", 1, []string{"open(0)"}},
		{"seen-execute2.json", "execute", 2, []string{"open(0)", "execute(1)"}},
		{"seen-close.json", "close", 0, []string{"open(0)", "execute(2)"}},
		{"seen-collect.json", "collect", 0, []string{"open(0)", "execute(2)", "close(0)"}},
	} {
		s := read(tc.file)
		require.NotNil(t, s.InFlight, tc.file)
		assert.Equal(t, tc.phase, s.InFlight.Phase, tc.file)
		assert.Equal(t, tc.turn, s.InFlight.Turn, tc.file)
		assert.Equal(t, tc.recorded, recorded(s), tc.file)
	}
	last := read("hooks.json")
	assert.Nil(t, last.InFlight)
	assert.Equal(t, []string{"open(0)", "execute(2)", "close(0)", "collect(0)"}, recorded(last))
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}
