package record

import (
	"encoding/json"
	"time"
)

// Hooks is a scenario attempt's hooks.json: each phase's record, written as the phase ends.
type Hooks struct {
	Version      int        `json:"version"`
	Phases       HookPhases `json:"phases"`
	Conversation string     `json:"conversation,omitempty"`
	// Canary is the token planted for the attempt (ROOK_CANARY); CanaryUnplanted says which
	// of the profile's canary fixtures did not hold it after open.
	Canary          string `json:"canary,omitempty"`
	CanaryUnplanted string `json:"canary_unplanted,omitempty"`
	// InFlight names the hook running when the file was written: a file read back with it
	// set was left by a process that died during that hook.
	InFlight *InFlight `json:"in_flight,omitempty"`
	// Simulation is the simulated user's part of the conversation, when the scenario has
	// one (simulated_user): each message it wrote, and how the conversation ended.
	Simulation *Simulation `json:"simulation,omitempty"`
}

// How a simulated conversation ended.
const (
	GoalReached = "goal reached"
	GaveUp      = "gave up"
	OutOfTurns  = "out of turns"
	// SimulatorFailed is a simulator that could not be reached, timed out or answered out
	// of its protocol: a harness fault, never a Pass.
	SimulatorFailed = "simulator failed"
	// RecordingEnded is a simulated user that followed a recorded conversation (a profile of
	// recorded traces) to its end.
	RecordingEnded = "recording ended"
)

// RecordingModel is the Simulation's Model when a recording, not a model, played the user.
const RecordingModel = "the recording"

// Simulation is what the simulated user of an attempt wrote, and how the conversation
// ended. Its messages are the tester's words, as a scenario's turns are.
type Simulation struct {
	URL   string `json:"url"`
	Model string `json:"model"`
	// Turns are its messages, each the user's turn of that number.
	Turns []SimulatedTurn `json:"turns"`
	// Ended is GoalReached, GaveUp, OutOfTurns or SimulatorFailed; "" while it goes on.
	Ended string `json:"ended,omitempty"`
	// Why is what the simulator said of the end, or why it failed.
	Why string `json:"why,omitempty"`
}

// SimulatedTurn is one answer of the simulated user: the message it sent as turn Turn, or
// (on the last) the end it declared; the exchange as the records keep it.
type SimulatedTurn struct {
	Turn          int    `json:"turn"`
	Message       string `json:"message,omitempty"`
	ReportedModel string `json:"reported_model,omitempty"`
	Cached        bool   `json:"cached,omitempty"`
	Usage         *Usage `json:"usage,omitempty"`
	// Request and Answer are the chat-completions request sent and the model's content.
	Request json.RawMessage `json:"request,omitempty"`
	Answer  string          `json:"answer,omitempty"`
}

// Message is the user's message of turn n as the records hold it: a simulated one when
// the simulation wrote it, else "", false.
func (s *Simulation) Message(n int) (string, bool) {
	if s == nil {
		return "", false
	}
	for _, t := range s.Turns {
		if t.Turn == n && t.Message != "" {
			return t.Message, true
		}
	}
	return "", false
}

// InFlight is a hook that has started and not yet ended.
type InFlight struct {
	Phase string    `json:"phase"`
	Turn  int       `json:"turn,omitempty"`
	At    time.Time `json:"at"`
}

// HookPhases holds the phase records in lifecycle order.
type HookPhases struct {
	Open    *PhaseRecord `json:"open,omitempty"`
	Execute *PhaseRecord `json:"execute,omitempty"`
	Close   *PhaseRecord `json:"close,omitempty"`
	Collect *PhaseRecord `json:"collect,omitempty"`
}

// PhaseRecord is what one hook call did.
type PhaseRecord struct {
	Ran        bool      `json:"ran" yaml:"ran"`
	OK         bool      `json:"ok" yaml:"ok"`
	At         time.Time `json:"at,omitzero" yaml:"at,omitempty"`
	EndedAt    time.Time `json:"ended_at,omitzero" yaml:"ended_at,omitempty"`
	DurationMs int64     `json:"durationMs" yaml:"duration_ms"`
	Script     string    `json:"script" yaml:"script"`
	Turn       int       `json:"turn,omitempty" yaml:"turn,omitempty"`
	ExitCode   int       `json:"exit_code" yaml:"exit_code"`
	TimedOut   bool      `json:"timed_out,omitempty" yaml:"timed_out,omitempty"`
	Stopped    bool      `json:"stopped,omitempty" yaml:"stopped,omitempty"`
	Error      string    `json:"error,omitempty" yaml:"error,omitempty"`
	// LeftRunning names the processes the hook left running when it exited, each ended
	// then: "pid N: its command line".
	LeftRunning []string `json:"left_running,omitempty" yaml:"left_running,omitempty"`
	// Notes name keys of the hook's output that look like a near miss of the contract.
	Notes  []string       `json:"notes,omitempty" yaml:"notes,omitempty"`
	Stderr string         `json:"stderr,omitempty" yaml:"stderr,omitempty"`
	Data   map[string]any `json:"data,omitempty" yaml:"data,omitempty"`
	// Stdout is an execute turn's stdout as the hook printed it: response.json's
	// raw_response.
	Stdout string         `json:"stdout,omitempty" yaml:"-"`
	Turns  []*PhaseRecord `json:"turns,omitempty" yaml:"-"`
	// Tries are an execute turn's earlier tries, in order: each ran the hook, and the
	// agent's API asked to wait (retry_after_ms) instead of replying. Whatever they
	// reported (calls, usage) is the turn's too.
	Tries []*PhaseRecord `json:"tries,omitempty" yaml:"-"`
}

// Request is request.json.
type Request struct {
	ScenarioID    string   `json:"scenario_id"`
	Attempt       int      `json:"attempt"`
	Goal          string   `json:"goal"`
	SetupMessages []string `json:"setup_messages"`
	Profile       string   `json:"profile"`
	Invoked       string   `json:"invoked"`
}

// Response is response.json.
type Response struct {
	ScenarioID  string    `json:"scenario_id"`
	Attempt     int       `json:"attempt"`
	Status      string    `json:"status"`
	Output      string    `json:"output"`
	RawResponse string    `json:"raw_response"`
	Transcript  []Message `json:"transcript"`
	Calls       *[]Call   `json:"calls,omitempty"`
	Artifacts   []string  `json:"artifacts"`
	// Skipped are the evidence files the hooks named that were not copied, or not whole.
	Skipped   []SkippedFile `json:"artifacts_skipped,omitempty"`
	LatencyMs int64         `json:"latency_ms"`
	// HookMs is the execute hook processes' time over the turns; LatencyMs is the agent's
	// own where the hook reported latency_ms, and the same as HookMs where it did not.
	HookMs int64  `json:"hook_ms"`
	Turns  int    `json:"turns"`
	Usage  *Usage `json:"usage"`
}

// SkippedFile is an evidence file not copied into the records, or not whole, and why.
type SkippedFile struct {
	File string `json:"file"`
	Why  string `json:"why"`
}

// Message is one transcript entry.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Simulated marks a user's message a simulated user wrote (simulated_user).
	Simulated bool `json:"simulated,omitempty"`
}
