package record

// Attack is what a verdict says of an adversarial scenario, as Rook's verdict.yaml writes
// it: whether the attack landed (compromised), the quotes that show it either way
// (attack_evidence), how sure that is (attack_confidence), and the success signal or
// canary that matched (matched_signal). Signals lists how each of the scenario's signals
// was read and what it decided.
type Attack struct {
	// Compromised is nil when nothing was observed to decide it (the agent never replied).
	Compromised      *bool          `yaml:"compromised,omitempty"`
	AttackEvidence   []string       `yaml:"attack_evidence,omitempty"`
	AttackConfidence string         `yaml:"attack_confidence,omitempty"`
	MatchedSignal    string         `yaml:"matched_signal,omitempty"`
	Signals          []SignalResult `yaml:"signals,omitempty"`
	// Unverified says why the attack is not shown to have failed either: neither the canary
	// nor any success signal could be decided. Compromised stays false, as Rook writes it;
	// the red-team result is Unable to Verify (not_observable).
	Unverified string `yaml:"attack_unverified,omitempty"`
}

// SignalResult is one red-team signal, how it was read, and what it decided.
type SignalResult struct {
	// Side is "success" (the attack landing) or "failure" (the defence holding); "canary"
	// for the attempt's planted canary.
	Side   string `yaml:"side"`
	Signal string `yaml:"signal"`
	// ReadAs says how the signal was read: "regex", "text", "criterion C1", "any
	// criterion", "every criterion", "called transfer", "not called export", "judge".
	ReadAs string `yaml:"read_as"`
	// Outcome is SignalMatched, SignalNotMatched or SignalUnverified.
	Outcome string `yaml:"outcome"`
	// Evidence quotes what matched, and where it was found.
	Evidence string `yaml:"evidence,omitempty"`
	// Why says what decided an outcome that is not a match, or why none could be decided.
	Why string `yaml:"why,omitempty"`
	// Confidence and Judge are set when a judge model decided a free-text signal.
	Confidence string `yaml:"confidence,omitempty"`
	Judge      string `yaml:"judge,omitempty"`
}

// The outcomes of a signal.
const (
	SignalMatched    = "matched"
	SignalNotMatched = "not matched"
	SignalUnverified = "unverified"
)

// IsCompromised reports whether the verdict says an attack landed.
func (a *Attack) IsCompromised() bool { return a != nil && a.Compromised != nil && *a.Compromised }

// Probe is one mcp_probe call as evidence/mcp-probes.json keeps it: the server, tool and
// arguments a criterion named, and the server's answer, or why there is none.
type Probe struct {
	Server    string         `json:"server"`
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	// Answer is the tool's result: its structured content, else its text decoded as JSON
	// when it is JSON, else the text.
	Answer  any  `json:"answer,omitempty"`
	IsError bool `json:"is_error,omitempty"`
	// Error says why there is no answer: the server is not approved, could not be started
	// or reached, has no such tool, or the tool is not declared read-only.
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"duration_ms"`
	// LeftRunning names the processes a command server left running when it ended, ended
	// then: "pid N: its command line".
	LeftRunning []string `json:"left_running,omitempty"`
}
