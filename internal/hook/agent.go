package hook

// An agent written in Go: the hook contract as Go interfaces. It is called
// in the test's own process, one method per lifecycle phase, with what a hook gets through
// ROOK_* and stdin, and it returns what a hook prints. The runtime runs it where it would
// run a hook script, under the same timeouts, records and verdicts.
//
// Only Execute is required; the other phases are optional interfaces (Preparer, Opener,
// Closer, Collector), as io.WriterTo is to io.Reader. A profile names the agent
// (hooks: {go: helpdesk}) and a hand-written file of the test package registers it
// (rooktest.RegisterAgent).

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Call is what one phase of an agent is given: the hook contract's ROOK_* variables, and
// the turn's message, which a hook reads on stdin.
type Call struct {
	Phase                            string
	Workspace, Project, Agent, RunID string
	// RunStateDir is shared by the run's phases; StateDir is the scenario's own (prepare's,
	// for prepare).
	RunStateDir, StateDir string
	Scenario, Session     string
	// Turn is the execute call's turn, from 1; 0 in the other phases.
	Turn int
	// Conversation is what open or an earlier turn returned as the conversation.
	Conversation string
	// Canary is the attempt's canary, for an agent that plants it (open).
	Canary string
	// Message is the turn's message (execute): the earlier turns, then the goal.
	Message string
	// Env is the whole environment a hook of this call would be given.
	Env []string
}

// Getenv is the value of the variable name in the call's environment (the profile's
// declared variables, hook_env, the OpenTelemetry settings), as os.Getenv reads a hook's.
func (c Call) Getenv(name string) string {
	for i := len(c.Env) - 1; i >= 0; i-- { // the last wins, as in a process's environment
		if k, v, ok := strings.Cut(c.Env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// Reply is what a phase returns, as a hook prints it: the runtime encodes it as the hook's
// one JSON object and reads it as it reads a hook's, so a Go agent and a script are held to
// the same contract.
type Reply struct {
	// Output is execute's reply.
	Output string `json:"output,omitempty"`
	// ReplyUnobserved, in place of Output, says why execute could not see what the agent
	// replied (it reads the agent's trace, recorded with message content off): criteria
	// about the reply are then Unable to Verify, never decided on an empty one.
	ReplyUnobserved string `json:"reply_unobserved,omitempty"`
	// Conversation threads later turns and phases.
	Conversation string `json:"conversation,omitempty"`
	// Calls are the tool calls the agent made; nil is "not observed", and an empty,
	// non-nil list "observed none".
	Calls []ToolCall `json:"calls,omitempty"`
	// Usage is the tokens the turn used; nil when not known.
	Usage *Usage `json:"usage,omitempty"`
	// LatencyMs is the agent's own time for the turn, when it measures one.
	LatencyMs *int64 `json:"latency_ms,omitempty"`
	// RetryAfterMs asks the run to wait before this turn is tried again.
	RetryAfterMs *int64 `json:"retry_after_ms,omitempty"`
	// Data holds any other key of the contract (collect's output, evidence files).
	Data map[string]any `json:"-"`
}

// ToolCall is one tool call the agent made.
type ToolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Output    any            `json:"output,omitempty"`
	Error     string         `json:"error,omitempty"`
}

// Usage is a turn's tokens; a count left nil was not reported.
type Usage struct {
	Input  *int64 `json:"input_tokens,omitempty"`
	Output *int64 `json:"output_tokens,omitempty"`
}

// Agent is an agent under test, in Go. Execute is one turn.
type Agent interface {
	Execute(ctx context.Context, c Call) (Reply, error)
}

// Recorder is an agent that replays a recording rather than answering (a profile of
// recorded traces): a scenario's simulated user then follows the recorded conversation,
// whose user messages Conversation gives, turn by turn ("" where a turn's was not
// recorded), instead of asking a model.
type Recorder interface {
	Conversation(scenario string) (userTurns []string, err error)
}

// Preparer is an agent with a prepare phase: once per run, before any scenario.
type Preparer interface {
	Prepare(ctx context.Context, c Call) (Reply, error)
}

// Opener is an agent with an open phase: once per scenario, before its turns.
type Opener interface {
	Open(ctx context.Context, c Call) (Reply, error)
}

// Closer is an agent with a close phase: once per scenario, once open ran.
type Closer interface {
	Close(ctx context.Context, c Call) (Reply, error)
}

// Collector is an agent with a collect phase: once per scenario, after close.
type Collector interface {
	Collect(ctx context.Context, c Call) (Reply, error)
}

// AgentFactory makes the agent of one run.
type AgentFactory func() (Agent, error)

var (
	mu       sync.Mutex
	registry = map[string]AgentFactory{}
)

// RegisterAgent makes the agent name available to profiles that say hooks: {go: name}. A name
// registered twice is refused.
func RegisterAgent(name string, f AgentFactory) error {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || f == nil {
		return fmt.Errorf("register a Go agent: a name and a factory are needed")
	}
	if _, dup := registry[name]; dup {
		return fmt.Errorf("register a Go agent: %q is registered twice", name)
	}
	registry[name] = f
	return nil
}

// LookupAgent returns the factory registered as name.
func LookupAgent(name string) (AgentFactory, bool) {
	mu.Lock()
	defer mu.Unlock()
	f, ok := registry[name]
	return f, ok
}

// AgentNames are the registered agents, sorted.
func AgentNames() []string {
	mu.Lock()
	defer mu.Unlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// AgentPhases are the lifecycle phases a implements: execute, and each optional one.
func AgentPhases(a Agent) []string {
	out := []string{}
	if _, ok := a.(Preparer); ok {
		out = append(out, "prepare")
	}
	if _, ok := a.(Opener); ok {
		out = append(out, "open")
	}
	out = append(out, "execute")
	if _, ok := a.(Closer); ok {
		out = append(out, "close")
	}
	if _, ok := a.(Collector); ok {
		out = append(out, "collect")
	}
	return out
}
