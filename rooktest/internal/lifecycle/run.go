// Package lifecycle drives one run of a profile through the fixed lifecycle: prepare once,
// then per scenario open, execute per turn, close, collect and judge, recording every phase
// on disk as it ends. It knows nothing of package testing; rooktest maps its outcomes.
//
// The records are the state. Each attempt of a scenario reads its hooks.json before it
// does anything, and runs only the selected phases the records do not show completed, so
// the same code starts a run, continues it in another process (Continue), and finishes one
// that was killed: a hook is marked in flight before it starts, and an attempt whose
// conversation was interrupted is kept aside and started again from open. The judge reads
// the records too, never what is in memory, so a verdict does not depend on which process
// made it.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/ratelimit"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/simuser"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// Config is what a run needs to know before it starts.
type Config struct {
	// Workspace is the module root (ROOK_WORKSPACE); Project its module path.
	Workspace string
	Project   string
	Agent     string
	Profile   *spec.Profile
	// RecordsRoot is the directory that holds <agent>/<run-id>/.
	RecordsRoot string
	// Env is the environment hooks inherit (normally os.Environ()).
	Env []string
	// Redactor hides the declared variables' values in every record.
	Redactor *store.Redactor
	// Concurrency is the number of scenarios in flight.
	Concurrency int
	// Included, Skipped and Unrunnable are the plan, as run.yaml shows it.
	Included, Skipped, Unrunnable []record.Entry
	// Selection is the phases this process runs; nil means all of them.
	Selection Selection
	// Decide is how attempts are decided: the model judge and the bars its rows clear.
	Decide decide.Config
	// RunID names a new run (-rook.run-id); "" names it by its start time.
	RunID string
	// Shard is the part of the suite the run holds (-rook.shard), nil for all of it.
	Shard *record.Shard
	// Quarantined are the suite's scenarios on the agent's quarantine list, as run.yaml
	// shows them; their failures are excused (decide's counting.go), and so are every
	// scenario's when Gate is set (-rook.gate decides the exit code).
	Quarantined []record.Entry
	Gate        bool
	// Turns bounds how often execute turns start, over every scenario of the process
	// (-rook.rate), and holds them all while the agent's API asks to be left alone
	// (retry_after_ms); nil lets every turn start at once, and still honours such waits.
	Turns *ratelimit.Limiter
	// Notice says what the run does that a user would otherwise wonder about (a turn held
	// by the rate), without -v; nil says nothing.
	Notice func(string)
	// MaxWait is the longest such wait honoured (-rook.max-wait; a minute when zero): a
	// turn asked to wait longer fails, saying what the API asked.
	MaxWait time.Duration
	// Traces receives the agent's OpenTelemetry spans, each attempt a trace of its own;
	// nil when traces are off. TracesQuiet is how long no span may arrive before an
	// attempt's trace is taken as whole (500 ms when zero).
	Traces      Tracer
	TracesQuiet time.Duration
	// TracesServices is how long an attempt's trace stays open for a process that is not
	// the hooks' (a service exporting to the receiver's fixed address on its own schedule):
	// record.TraceWait's Services; 0 when the receiver has no fixed address.
	TracesServices time.Duration
	// Probe asks an MCP server the profile approves for a tool's answer, read-only (an
	// mcp_probe criterion's); nil when the suite has no way to.
	Probe Prober
	// GoAgent is the run's Go agent, when the profile's hooks are one (hooks: {go: name}):
	// its methods run where hook scripts would.
	GoAgent hook.Agent
	// TraceContext puts a call's trace (its TRACEPARENT and TRACESTATE) into the context a
	// Go agent's method is given, when traces are on.
	TraceContext func(ctx context.Context, env []string) context.Context
	// User is the model that plays a scenario's simulated user (simulated_user), at
	// UserURL as UserModel; nil when none is configured, and such a scenario's turns
	// after its setup messages fail, saying so.
	User               simuser.Chatter
	UserURL, UserModel string
}

// Tracer receives the agent's spans over OTLP, each attempt a trace of its own.
type Tracer interface {
	// Endpoint is the receiver's base URL (OTEL_EXPORTER_OTLP_ENDPOINT).
	Endpoint() string
	// Attempt opens a trace for an attempt and returns its id; redact rewrites secrets
	// out of what arrives.
	Attempt(scenario string, attempt int, redact func(string) string) string
	// Traceparent is one hook call's TRACEPARENT in the trace, and the call's token,
	// without which no span is taken into the attempt.
	Traceparent(trace string, call record.HookCall) (traceparent, token string)
	// Settle waits for the trace's spans to settle and returns it, saying what it lost;
	// spans that arrive after are late.
	Settle(trace string, w record.TraceWait, expect []record.HookCall) record.Trace
	// Late lists the attempts whose spans arrived after their trace was settled.
	Late() []record.LateSpans
}

// Prober asks an MCP server for a tool's answer (the request is a probe with no answer),
// bounded by ctx.
type Prober func(ctx context.Context, req record.Probe) record.Probe

// Run is one run: one profile, one record folder.
type Run struct {
	cfg     Config
	ID      string
	Dir     string
	started time.Time

	// RunStateDir is ROOK_RUN_STATE_DIR.
	RunStateDir string
	// PrepareStateDir is prepare's ROOK_STATE_DIR.
	PrepareStateDir string

	mu         sync.Mutex
	writeMu    sync.Mutex
	file       record.Run
	prepareEnd time.Time
	phasesRun  map[spec.Phase]bool
	// failedInARow counts consecutive execute transport failures, for halting.
	failedInARow int
	// unlock releases the run folder's lock.
	unlock   func()
	heldOnce sync.Once
	sawTools map[string]bool
	// sawCalls and sawUsage say whether any hook of this process reported calls or usage.
	sawCalls, sawUsage, sawOutput bool
	// scenarios are the scenarios this process ran attempts of, by id.
	scenarios map[string]*scenario.Scenario
	// sawNotes are the near misses of the hook contract hooks printed (a few).
	sawNotes []string
}

// HaltAfter is how many execute transport failures in a row halt a run, as Rook's do.
const HaltAfter = 3

// New creates the run's folder and writes run.yaml and the profile snapshot.
func New(cfg Config, now time.Time) (*Run, error) {
	base := filepath.Join(cfg.RecordsRoot, cfg.Agent)
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, fmt.Errorf("create records folder: %w", err)
	}
	id, dir, err := makeRunDir(base, cfg.RunID, now)
	if err != nil {
		return nil, err
	}
	if cfg.Selection == nil {
		cfg.Selection = All()
	}
	r := newRun(cfg, id, dir, now)
	unlock, err := store.Lock(dir)
	if err != nil {
		return nil, err
	}
	r.unlock = unlock
	if err := r.makeStateDirs(); err != nil {
		return nil, err
	}
	r.file = record.Run{Version: 1, ID: id, Agent: cfg.Agent, Pins: record.Pins{ProfileID: cfg.Profile.ID, ProfileRevision: "sha256:" + cfg.Profile.SHA256},
		Created: now.UTC(), Concurrency: cfg.Concurrency,
		Included: nonNil(cfg.Included), Skipped: nonNil(cfg.Skipped), Unrunnable: nonNil(cfg.Unrunnable),
		PhasesRun: []string{}, Carried: []string{}, Shard: cfg.Shard, Quarantined: cfg.Quarantined}
	if err := cfg.Redactor.YAML(filepath.Join(dir, "profile.yaml"), r.profileSnapshot()); err != nil {
		return nil, err
	}
	if err := r.writeRunFile(); err != nil {
		return nil, err
	}
	return r, nil
}

// makeRunDir creates the new run's folder under base: named id when one is given (a run id
// names one run, so an existing folder is an error), else by the time now, with -2, -3...
// after it when runs start in the same second.
func makeRunDir(base, id string, now time.Time) (string, string, error) {
	if id != "" {
		dir := filepath.Join(base, id)
		err := os.Mkdir(dir, 0o755)
		if errors.Is(err, os.ErrExist) {
			return "", "", fmt.Errorf("run %s already exists in %s: a run id names one run; continue it with -rook.run=%s, or give another id", id, base, id)
		}
		if err != nil {
			return "", "", fmt.Errorf("create run folder: %w", err)
		}
		return id, dir, nil
	}
	id = now.UTC().Format("2006-01-02T15-04-05Z")
	dir := filepath.Join(base, id)
	for i := 2; ; i++ {
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return id, dir, nil
		}
		if !errors.Is(err, os.ErrExist) || i > 1000 {
			return "", "", fmt.Errorf("create run folder: %w", err)
		}
		id = fmt.Sprintf("%s-%d", now.UTC().Format("2006-01-02T15-04-05Z"), i)
		dir = filepath.Join(base, id)
	}
}

func newRun(cfg Config, id, dir string, now time.Time) *Run {
	if cfg.Turns == nil {
		cfg.Turns = ratelimit.New(ratelimit.Rate{}) // still holds turns when an agent asks to wait
	}
	return &Run{cfg: cfg, ID: id, Dir: dir, started: now, RunStateDir: filepath.Join(dir, "run-state"),
		PrepareStateDir: filepath.Join(dir, "prepare", "hook-state"), phasesRun: map[spec.Phase]bool{},
		scenarios: map[string]*scenario.Scenario{}}
}

// makeStateDirs creates the run's state folders: ROOK_RUN_STATE_DIR, and prepare's
// ROOK_STATE_DIR.
func (r *Run) makeStateDirs() error {
	for _, d := range []string{r.RunStateDir, r.PrepareStateDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("create state folder: %w", err)
		}
	}
	return nil
}

func (r *Run) profileSnapshot() record.Profile {
	p := r.cfg.Profile
	s := record.Profile{ID: p.ID, Name: p.Name, Source: r.rel(p.File), SHA256: p.SHA256,
		Hooks: map[string]map[string]any{}, Env: []map[string]any{}, HookEnv: p.HookEnv,
		Capabilities: map[string]bool{"multi_turn": p.Capabilities.MultiTurn, "calls": p.Capabilities.Calls, "usage": p.Capabilities.Usage},
		Concurrency:  p.Concurrency, Pricing: p.Pricing}
	for ph, h := range p.Hooks {
		e := map[string]any{"timeout_seconds": p.TimeoutFor(ph).Seconds()}
		if h.Script != "" {
			e["script"] = r.rel(h.Path)
		} else {
			e["command"] = h.Command
		}
		if h.Delay > 0 {
			e["delay_seconds"] = h.Delay.Seconds()
		}
		s.Hooks[string(ph)] = e
	}
	for _, v := range p.Env {
		s.Env = append(s.Env, map[string]any{"variable": v.Variable, "purpose": v.Purpose, "secret": v.IsSecret()})
	}
	return s
}

// rel shows path relative to the workspace when it lies inside it.
func (r *Run) rel(path string) string {
	if rel, err := filepath.Rel(r.cfg.Workspace, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

func (r *Run) writeRunFile() error {
	// One writer at a time, so that an older snapshot never lands over a newer one.
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.mu.Lock()
	// A deep copy of the lists, taken under the lock: they are appended to and sorted in
	// place by other scenarios while this one is being encoded.
	f := r.file
	f.Included, f.Skipped, f.Unrunnable = slices.Clone(f.Included), slices.Clone(f.Skipped), slices.Clone(f.Unrunnable)
	f.Carried = slices.Clone(f.Carried)
	if f.Prepare != nil {
		p := *f.Prepare
		f.Prepare = &p
	}
	f.PhasesRun = nil
	for _, ph := range spec.Phases {
		if r.phasesRun[ph] {
			f.PhasesRun = append(f.PhasesRun, string(ph))
		}
	}
	if f.PhasesRun == nil {
		f.PhasesRun = []string{}
	}
	r.mu.Unlock()
	return r.cfg.Redactor.WriteRun(filepath.Join(r.Dir, "run.yaml"), f)
}

// Close releases the run folder for other processes. Finish does not: a process may finish
// and still hold its run until it ends.
func (r *Run) Close() {
	if r.unlock != nil {
		r.unlock()
	}
}

// saw notes what a hook's output reported, for the capability warnings.
func (r *Run) saw(out *hook.Output) {
	r.mu.Lock()
	r.sawCalls = r.sawCalls || out.CallsObserved
	r.sawUsage = r.sawUsage || out.Usage != nil
	r.sawOutput = true
	for _, n := range out.Notes {
		if !slices.Contains(r.sawNotes, n) && len(r.sawNotes) < 20 {
			r.sawNotes = append(r.sawNotes, n)
		}
	}
	r.mu.Unlock()
}

// heldFor says, once a run, why a turn's start was held longer than a second: a run that
// waits a minute on a rate with nothing said looks hung.
func (r *Run) heldFor(scenario string, turn int, t *ratelimit.Ticket) {
	if t == nil || t.Waited <= time.Second || r.cfg.Notice == nil {
		return
	}
	r.heldOnce.Do(func() {
		r.cfg.Notice(fmt.Sprintf("%s execute turn %d waited %s to start: %s (said once a run; every held turn waits the same way)",
			scenario, turn, t.Waited.Round(100*time.Millisecond), t.Why))
	})
}

// observed notes what an attempt's judged observations hold, for the capability warnings:
// a capability is met by any source that observed it (a trace's calls, collect's usage),
// not only by what a hook printed.
func (r *Run) observed(obs *observe.Observations) {
	seen, usage := obs.Calls(), obs.Usage().Observed
	calls := seen.Observed
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sawCalls = r.sawCalls || calls
	r.sawUsage = r.sawUsage || usage
	for _, c := range seen.Value {
		if r.sawTools == nil {
			r.sawTools = map[string]bool{}
		}
		if len(r.sawTools) < maxToolsSeen {
			r.sawTools[c.Name] = true
		}
	}
}

// maxToolsSeen bounds the tool names a run remembers: an agent's names are hostile input.
const maxToolsSeen = 1000

// ToolsSeen are the names of the tools any attempt this process judged was observed to
// call, sorted.
func (r *Run) ToolsSeen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.sawTools))
	for n := range r.sawTools {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Reported says whether any hook this process ran printed output (ran), whether any
// source observed calls, and usage (a hook's report, collect's, the trace), and the near
// misses of the contract the hooks printed (notes).
func (r *Run) Reported() (ran, calls, usage bool, notes []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sawOutput, r.sawCalls, r.sawUsage, slices.Clone(r.sawNotes)
}

// markPhase adds ph to phases_run, writing run.yaml the first time.
func (r *Run) markPhase(ph spec.Phase) {
	r.mu.Lock()
	known := r.phasesRun[ph]
	r.phasesRun[ph] = true
	r.mu.Unlock()
	if !known {
		_ = r.writeRunFile() // Finish writes it again and reports a failure
	}
}

// noteExecute counts execute transport failures in a row (a non-zero exit or a timeout);
// the third halts the run. Any other outcome resets the count.
func (r *Run) noteExecute(perr *PhaseError) {
	r.mu.Lock()
	halted := false
	if perr == nil || !perr.Transport() {
		r.failedInARow = 0
	} else {
		r.failedInARow++
		if r.failedInARow >= HaltAfter && !r.file.Halted {
			r.file.Halted = true
			r.file.HaltReason = fmt.Sprintf("%d execute failures of the transport kind in a row; the last: %v%s", r.failedInARow, perr, lastLine(perr.Stderr))
			halted = true
		}
	}
	r.mu.Unlock()
	if halted {
		_ = r.writeRunFile() // Finish writes it again and reports a failure
	}
}

// lastLine quotes the last line of a hook's stderr, its likeliest diagnosis.
func lastLine(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return fmt.Sprintf(" (stderr: %q)", l)
	}
	return ""
}

// haltedWhy is the reason the run halted, or "".
func (r *Run) haltedWhy() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.file.HaltReason
}

// Halted reports whether the run halted, and why.
func (r *Run) Halted() (bool, string) {
	why := r.haltedWhy()
	return why != "", why
}

// Logger receives progress lines: hook stderr and phase ends.
type Logger func(line string)

// Narrow moves the included scenarios that never started to skipped, saying why: go test's
// -run narrows a run further than its plan.
func (r *Run) Narrow(started func(id string) bool, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := make([]record.Entry, 0, len(r.file.Included))
	for _, e := range r.file.Included {
		if _, err := os.Stat(filepath.Join(r.Dir, "scenarios", e.ScenarioID)); started(e.ScenarioID) || err == nil {
			kept = append(kept, e)
		} else {
			r.file.Skipped = append(r.file.Skipped, record.Entry{ScenarioID: e.ScenarioID, Why: why})
		}
	}
	r.file.Included = nonNil(kept)
}

// nonNil makes a nil list an empty one, so that records show [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
