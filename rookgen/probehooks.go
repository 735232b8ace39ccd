package main

// rookgen probe calls a profile's hooks once, as a run would and under the same contract,
// without judging anything: prepare, open, one execute with a harmless message, close and
// collect. It says what each printed, which capabilities the hooks showed, and the fix for
// each breach of the contract it saw.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// probeGoal is the message the probe's execute turn sends: one any agent can answer without
// doing anything.
const probeGoal = "Hello! This is a connection check; a short reply is all that is needed."

// probePhase is one hook the probe called.
type probePhase struct {
	Phase  spec.Phase
	Result *hook.Result // nil when it could not start
	Output *hook.Output // nil when its stdout did not parse
	Err    error
	// Fixes say how to repair what broke the contract, one per problem.
	Fixes []string
}

// OK reports whether the hook did its job within the contract.
func (p *probePhase) OK() bool { return p.Err == nil && len(p.Fixes) == 0 }

// probeReport is what the probe saw.
type probeReport struct {
	Phases []*probePhase
	// Observed are the capabilities the hooks showed: a conversation id from open or
	// execute (multi_turn), "calls" and "usage" from execute or collect.
	Observed spec.Capabilities
	// Calls and Usage are what execute and collect reported, when they did.
	Calls []record.Call
	Usage *record.Usage
}

// OK reports whether every hook the probe called did its job within the contract.
func (r *probeReport) OK() bool {
	for _, p := range r.Phases {
		if !p.OK() {
			return false
		}
	}
	return len(r.Phases) > 0
}

// probeConfig is what the probe needs besides the profile.
type probeConfig struct {
	Workspace, Project, Agent string
	// Env is the hooks' inherited environment (os.Environ()).
	Env []string
}

// probeHooks calls the profile's hooks in lifecycle order, the scenario phases once each, in
// state folders of its own that it removes. After a failed open it calls no execute, and
// close still runs, as in a run.
func probeHooks(ctx context.Context, p *spec.Profile, cfg probeConfig) (*probeReport, error) {
	if p.Recorded != nil {
		return nil, fmt.Errorf("probe: profile %s judges traces recorded in %s (hooks.traces): there is no agent to call; run its suite with go test", p.ID, p.Recorded.Dir)
	}
	if p.GoAgent != "" {
		return nil, fmt.Errorf("probe: profile %s's hooks are the Go agent go:%s, which runs inside its test binary, not as a command: run its suite with go test instead", p.ID, p.GoAgent)
	}
	dir, err := os.MkdirTemp("", "rookgen-probe-")
	if err != nil {
		return nil, fmt.Errorf("probe: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }() // the probe's scratch folders
	runID := "probe-" + time.Now().UTC().Format("2006-01-02T15-04-05Z")
	// Everything a run gives a scenario's hooks: ids, state folders, the attempt's canary,
	// and a trace context to carry (no receiver: what is exported goes nowhere).
	scope := hook.Scope{Workspace: cfg.Workspace, Project: cfg.Project, Agent: cfg.Agent, RunID: runID,
		RunStateDir: filepath.Join(dir, "run-state"), Scenario: "PROBE", Session: runID + "/PROBE/1", Turn: 1,
		Canary: hook.NewCanary()}
	trace := []string{"TRACEPARENT=00-" + randomHex(16) + "-" + randomHex(8) + "-01"}
	for _, d := range []string{scope.RunStateDir, filepath.Join(dir, "prepare"), filepath.Join(dir, "scenario")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("probe: %w", err)
		}
	}
	rep := &probeReport{}
	openFailed := false
	var lastEnd time.Time
	for _, ph := range spec.HookPhases {
		h, ok := p.Hooks[ph]
		if !ok || (ph == spec.Execute && openFailed) {
			continue
		}
		scope.Phase, scope.StateDir = string(ph), filepath.Join(dir, "scenario")
		if ph == spec.Prepare {
			scope.StateDir = filepath.Join(dir, "prepare")
		}
		stdin := ""
		if ph == spec.Execute {
			stdin = probeGoal
		}
		if wait := h.Delay - time.Since(lastEnd); h.Delay > 0 && !lastEnd.IsZero() && wait > 0 {
			// delay_seconds, as in a run: at least this long after the preceding phase.
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				return rep, fmt.Errorf("probe: %w", context.Cause(ctx))
			}
		}
		env := append(hook.Environ(cfg.Env, p.HookEnv, scope), trace...)
		res, err := hook.Run(ctx, hook.Spec{Argv: h.Argv(ph), Dir: p.AgentDir, Env: env, Stdin: stdin, Timeout: p.TimeoutFor(ph)})
		lastEnd = time.Now()
		got := &probePhase{Phase: ph, Result: res, Err: err}
		rep.Phases = append(rep.Phases, got)
		got.diagnose(h, p.TimeoutFor(ph), secretNames(p))
		if !got.OK() {
			got.Fixes = append(got.Fixes, unsetReads(h.Argv(ph), p.AgentDir, env)...)
		}
		if ph == spec.Open && !got.OK() {
			openFailed = true
		}
		if got.Output == nil {
			continue
		}
		if c := got.Output.Conversation; c != "" && (ph == spec.Open || ph == spec.Execute) {
			scope.Conversation = c
			rep.Observed.MultiTurn = true
		}
		if ph == spec.Execute || ph == spec.Collect {
			if got.Output.CallsObserved {
				rep.Observed.Calls = true
				rep.Calls = append(rep.Calls, got.Output.Calls...)
			}
			if u := got.Output.Usage; u != nil {
				rep.Observed.Usage = true
				rep.Usage = u
			}
		}
	}
	return rep, nil
}

// diagnose parses the hook's stdout and says how to fix each breach of the contract.
func (p *probePhase) diagnose(h spec.Hook, timeout time.Duration, secrets []string) {
	res := p.Result
	switch {
	case p.Err != nil && refused(res.Stderr):
		fix := fmt.Sprintf("the agent refused the request's credentials%s: ", stderrTail(res.Stderr))
		if len(secrets) == 0 {
			fix += "the profile declares no credential; declare the variable the agent needs in env (secret: true) and have the hook send it"
		} else {
			fix += "check the value of " + strings.Join(secrets, ", ") + " (the profile's credentials; the hook's stderr says how each is sent)"
		}
		p.Fixes = append(p.Fixes, fix)
		return
	case res == nil || notStarted(p.Err):
		p.Fixes = append(p.Fixes, fmt.Sprintf("%v: install the program or fix the path in hooks.%s", p.Err, p.Phase))
		return
	case res.TimedOut:
		p.Fixes = append(p.Fixes, fmt.Sprintf("it did not finish within %s: make the hook return sooner, or raise hooks.%s.timeout_seconds", timeout, p.Phase))
		return
	case p.Err != nil && res.ExitCode != 0:
		p.Fixes = append(p.Fixes, fmt.Sprintf("it %v%s: a hook exits 0 when it did its job, and non-zero only when the phase failed; its stderr says why", p.Err, stderrTail(res.Stderr)))
		return
	case p.Err != nil:
		p.Fixes = append(p.Fixes, fmt.Sprintf("%v: print at most %d bytes on stdout, and the rest on stderr", p.Err, hook.DefaultMaxStdout))
		return
	}
	out, err := hook.ParseOutput(res.Stdout, p.Phase == spec.Execute)
	if err != nil {
		p.Err = fmt.Errorf("bad stdout: %w", err)
		p.Fixes = append(p.Fixes, "print exactly one JSON object on stdout ("+contractOf(p.Phase)+"), and diagnostics on stderr: "+err.Error())
	}
	if out != nil && len(out.Data) > 0 {
		p.Output = out
		p.Fixes = append(p.Fixes, out.Notes...)
	}
	if len(res.Left) > 0 {
		p.Fixes = append(p.Fixes, "it exited and left processes of its own running (ended since: "+strings.Join(res.Left, "; ")+"): wait for what the hook starts, or stop it, before exiting")
	}
}

// notStarted reports an error of starting the hook's program (not found, not executable),
// as against one of the program itself.
func notStarted(err error) bool {
	var pathErr *fs.PathError
	var execErr *exec.Error
	return errors.As(err, &pathErr) || errors.As(err, &execErr)
}

func contractOf(ph spec.Phase) string {
	switch ph {
	case spec.Execute:
		return `{"output": "<the agent's reply>"}, with "conversation", "calls" and "usage" when the agent gives them`
	case spec.Open:
		return `{"conversation": "<id>"} when the agent keeps a conversation, or nothing`
	case spec.Collect:
		return `{"calls": [...], "usage": {...}} when the agent's traces hold them, or nothing`
	}
	return "or nothing"
}

// refused reports whether a hook's stderr says the agent answered HTTP 401 or 403.
func refused(stderr string) bool {
	return strings.Contains(stderr, " answered 401") || strings.Contains(stderr, " answered 403")
}

// secretNames are the profile's credential variables.
func secretNames(p *spec.Profile) []string {
	var out []string
	for _, v := range p.Env {
		if v.IsSecret() {
			out = append(out, v.Variable)
		}
	}
	return out
}

// stderrTail is the last line of a hook's stderr in parentheses (lastLine), "" when it
// printed nothing.
func stderrTail(stderr string) string {
	if last := lastLine(stderr); last != "" {
		return " (" + last + ")"
	}
	return ""
}

// quoteOutput shows what a hook printed, escaped and cut to n bytes: a hook's output is shown,
// never obeyed (no terminal escapes, no control characters).
func quoteOutput(s string, n int) string {
	if len(s) > n {
		return strconv.Quote(s[:n]) + "..."
	}
	return strconv.Quote(s)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail
	return hex.EncodeToString(b)
}

// envRead finds where a script reads a variable: process.env.NAME and process.env["NAME"]
// (JavaScript), os.environ["NAME"], os.environ.get("NAME") and os.getenv("NAME")
// (Python), os.Getenv("NAME") and os.LookupEnv("NAME") (Go), $NAME and ${NAME} (shell).
var envRead = regexp.MustCompile(`process\.env\.([A-Za-z_][A-Za-z0-9_]*)|process\.env\[['"]([A-Za-z_][A-Za-z0-9_]*)['"]\]|environ(?:\.get\(|\[)\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]|getenv\(\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]|(?:Getenv|LookupEnv)\("([A-Za-z_][A-Za-z0-9_]*)"\)|\$\{?([A-Z_][A-Z0-9_]*)`)

// unsetReads names the variables a failed hook's script reads that its environment did not
// hold: the script is each argument of the hook's command that is a file in dir (or a Go
// main package's folder), read up to 1 MiB. A variable a script only falls back from is
// named too: the hook's stderr says whether it mattered.
func unsetReads(argv []string, dir string, env []string) []string {
	set := map[string]bool{}
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok {
			set[k] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, arg := range argv[min(1, len(argv)):] {
		path := arg
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		files := []string{path}
		if info, err := os.Stat(path); err == nil && info.IsDir() {
			files, _ = filepath.Glob(filepath.Join(path, "*.go"))
		}
		for _, f := range files {
			info, err := os.Stat(f)
			if err != nil || !info.Mode().IsRegular() || info.Size() > 1<<20 {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			for _, m := range envRead.FindAllStringSubmatch(string(data), -1) {
				name := strings.Join(m[1:], "")
				if set[name] || seen[name] {
					continue
				}
				seen[name] = true
				rel, err := filepath.Rel(dir, f)
				if err != nil {
					rel = f
				}
				out = append(out, fmt.Sprintf("%s reads %s, which this probe's environment did not hold: set it (or declare it in the profile's env or hook_env)", filepath.ToSlash(rel), name))
			}
		}
	}
	return out
}
