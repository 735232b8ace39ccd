package rooktest

import (
	"fmt"
	"path"
	"strings"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/rooktest/internal/capability"
)

// An agent written in Go can be tested in the test's own process: its profile says
// hooks: {go: name} instead of naming scripts, and a hand-written file of the test package
// registers it. Each lifecycle phase is then a method call, under the hook contract's
// rules: the phase's deadline is the method's context, what it returns is what a hook
// prints, a panic or an error fails the phase with its diagnosis, and a method that ignores
// its context fails it too. Records, verdicts and the judge are the same as for scripts.
type (
	// Agent is a Go agent under test: its one required method is one turn,
	//
	//	Execute(ctx context.Context, c Call) (Reply, error)
	//
	// ctx ends at the phase's deadline (execute's timeout_seconds); an error or a panic
	// fails the turn with its diagnosis, as a hook's non-zero exit does.
	Agent = hook.Agent
	// Preparer, Opener, Closer and Collector are the phases an Agent may have besides
	// execute: Prepare, Open, Close and Collect, each
	//
	//	func(ctx context.Context, c Call) (Reply, error)
	//
	// called when the hook contract calls that phase's hook.
	Preparer  = hook.Preparer
	Opener    = hook.Opener
	Closer    = hook.Closer
	Collector = hook.Collector
	// Call is what a phase is given, what a hook gets through ROOK_* and stdin:
	//
	//	Phase                            string   // prepare, open, execute, close or collect
	//	Workspace, Project, Agent, RunID string   // ROOK_WORKSPACE, ROOK_PROJECT, ROOK_AGENT, ROOK_RUN_ID
	//	RunStateDir, StateDir            string   // the run's shared folder; the scenario's own
	//	Scenario, Session                string   // ROOK_SCENARIO_ID, ROOK_SESSION
	//	Turn                             int      // execute's turn, from 1; 0 elsewhere
	//	Conversation                     string   // what open or an earlier turn returned
	//	Canary                           string   // the attempt's ROOK_CANARY, for an agent that plants it
	//	Message                          string   // execute's message (stdin)
	//	Env                              []string // the environment a hook would get; read it with c.Getenv
	Call = hook.Call
	// Reply is what a phase returns, what a hook prints as its one JSON object, held to the
	// same contract:
	//
	//	Output          string         // execute's reply ("output")
	//	ReplyUnobserved string         // instead of Output: why the reply was not seen ("reply_unobserved")
	//	Conversation    string         // the id later turns and phases continue ("conversation")
	//	Calls           []ToolCall     // the tools called; nil is not observed, []ToolCall{} none ("calls")
	//	Usage           *Usage         // the turn's tokens; nil when not known ("usage")
	//	LatencyMs       *int64         // the agent's own time for the turn ("latency_ms")
	//	RetryAfterMs    *int64         // wait this long, then try the turn again ("retry_after_ms")
	//	Data            map[string]any // any other key of the contract (collect's, evidence files)
	//
	// See the example.
	Reply = hook.Reply
	// ToolCall is one tool call the agent made:
	//
	//	Name      string         // the tool ("name")
	//	Arguments map[string]any // what it was called with ("arguments")
	//	Output    any            // what it returned ("output")
	//	Error     string         // how it failed, if it did ("error")
	ToolCall = hook.ToolCall
	// Usage is a turn's tokens; a count left nil was not reported, never zero:
	//
	//	Input  *int64 // "input_tokens"
	//	Output *int64 // "output_tokens"
	Usage = hook.Usage
)

// RegisterAgent makes the Go agent name, made by newAgent once per run, available to
// profiles whose hooks are hooks: {go: name}. Call it from an init function (or TestMain)
// of a hand-written file of the test package:
//
//	func init() { rooktest.RegisterAgent("helpdesk", helpdesk.New) }
//
// Registering a name twice panics, as registering a database/sql driver twice does.
func RegisterAgent(name string, newAgent func() (Agent, error)) {
	if err := hook.RegisterAgent(name, newAgent); err != nil {
		panic("rooktest: " + err.Error())
	}
}

// goAgentFor makes the profile's Go agent for this run and defines a phase for each method
// it has; nil for a profile of scripts.
func goAgentFor(p *spec.Profile, s Suite) (Agent, error) {
	if p.GoAgent == "" {
		return nil, nil
	}
	if p.Recorded != nil {
		if capability.Replay == nil {
			return nil, fmt.Errorf("profile %s judges recorded traces (hooks: {traces: ...}), and this test binary does not link their replay: import _ %q in a file of the test package (rookgen does in the code it generates)",
				p.ID, capability.Import+"traces")
		}
		a, err := capability.Replay(p)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", p.ID, err)
		}
		return a, nil
	}
	newAgent, ok := hook.LookupAgent(p.GoAgent)
	if !ok {
		known := ""
		if names := hook.AgentNames(); len(names) > 0 {
			known = " (this test binary registers " + strings.Join(names, ", ") + ")"
		}
		return nil, fmt.Errorf("profile %s's hooks are the Go agent %q, and no file of this test package registers it%s: write %s with func init() { rooktest.RegisterAgent(%q, <a func() (rooktest.Agent, error) that makes it>) }",
			p.ID, p.GoAgent, known, path.Join("scenarios", s.Agent, "agent_test.go"), p.GoAgent)
	}
	a, err := newAgent()
	if err != nil {
		return nil, fmt.Errorf("make the Go agent %q of profile %s: %w", p.GoAgent, p.ID, err)
	}
	if a == nil {
		return nil, fmt.Errorf("make the Go agent %q of profile %s: it made none", p.GoAgent, p.ID)
	}
	has := map[spec.Phase]bool{}
	for _, ph := range hook.AgentPhases(a) {
		has[spec.Phase(ph)] = true
		if _, given := p.Hooks[spec.Phase(ph)]; !given {
			p.Hooks[spec.Phase(ph)] = spec.Hook{Go: p.GoAgent}
		}
	}
	for ph := range p.Hooks {
		if !has[ph] {
			return nil, fmt.Errorf("profile %s gives hooks.%s a time limit, and the Go agent %q has no %s method", p.ID, ph, p.GoAgent, ph)
		}
	}
	return a, nil
}
