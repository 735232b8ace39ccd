package spec

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/record"
	"gopkg.in/yaml.v3"
)

// Profile says how to reach one agent: hook scripts per phase, the environment they need,
// and what the hooks are known to report.
type Profile struct {
	// ID is the stable id; it equals the file name without .yaml.
	ID string
	// Name is the human label.
	Name string
	// Hooks holds one entry per defined phase; only Execute is required.
	Hooks map[Phase]Hook
	// GoAgent names the Go agent registered in the test package (hooks: {go: name}) that
	// stands for every hook: the runtime defines a phase for each method it has. Hooks then
	// holds execute, and the phases the profile gives a timeout or a delay.
	GoAgent   string
	GoAgentAt Pos
	// Recorded is set when the hooks are traces recorded elsewhere (hooks: {traces: DIR}):
	// the run calls no agent, and replays each scenario's recorded conversation instead.
	// GoAgent is then RecordedAgent, and Traces is on.
	Recorded *Recorded
	// Env lists the variables the hooks need; a run with one unset fails before any hook.
	Env []EnvVar
	// HookEnv is passed to every hook; ROOK_* values win over it.
	HookEnv map[string]string
	// Capabilities decide which scenarios are runnable.
	Capabilities Capabilities
	// Traces turns on the run's OpenTelemetry trace receiver (traces: otlp); TracesQuiet is
	// how long no span may arrive before an attempt's trace is taken as whole.
	Traces      bool
	TracesQuiet time.Duration
	// TracesAddr is where the receiver listens (traces: {otlp: 127.0.0.1:4318}), for an
	// agent service started on its own that exports there; "" for a free port each run.
	TracesAddr string
	// TracesSettle is how long the run waits, once its last hook has ended, for spans
	// still to come (traces: {settle_ms: ...}); 0 for the default (SettleAtEnd).
	TracesSettle time.Duration
	// Rate is how often the agent's API takes a turn (rate: 60/m), over every CI shard, as
	// written ("" for no bound): package ratelimit reads it, and Err places what it finds
	// wrong at RateAt.
	Rate   string
	RateAt Pos
	// Pricing is the price table the run's tokens are priced by; nil without one.
	Pricing *record.Pricing
	// CanaryFixtures are the files (relative to the attempt's ROOK_STATE_DIR) open must
	// have planted ROOK_CANARY in; WriteTools the tools that change something, for possible
	// evasion (nil: told by their names); MCP the MCP servers mcp_probe criteria may call.
	CanaryFixtures []string
	WriteTools     []string
	// Tools, when set, are every tool the agent has: a criterion that names another is an
	// error (a misspelt tool would pass not_called for ever).
	Tools []string
	// Sources, when set, are where the agent's own code is (files or folders, relative to
	// the module root): rookgen affected takes a change elsewhere to leave its scenarios
	// alone.
	Sources []string
	MCP     []MCPServer
	// Concurrency is how many scenarios are in flight at once (at least 1).
	Concurrency int
	// ConcurrencyGiven says the profile sets concurrency: what the agent bears, the
	// ceiling of -rook.concurrency=auto.
	ConcurrencyGiven bool

	// File is the profile's path as given to LoadProfile.
	File string
	// AgentDir is the directory hook paths resolve against.
	AgentDir string
	// Source is the file's bytes, kept for snapshots; SHA256 is their hex digest.
	Source []byte
	SHA256 string
}

// Hook is one phase's hook.
type Hook struct {
	// Go names the Go agent that runs the phase in the test's process (hooks: {go: name}).
	Go string
	// Script is the path as written in the profile (empty when Command is used).
	Script string
	// Path is Script resolved against the agent directory.
	Path string
	// Command, when set, replaces "node <script>": argv to which the phase is appended.
	Command []string
	// Timeout overrides the phase's default timeout when non-zero.
	Timeout time.Duration
	// Delay is the minimum time since the preceding phase finished before this one starts.
	Delay time.Duration
}

// Argv is the command line of the hook for phase p: node <script> <phase>, or the
// profile's command with the phase appended.
func (h Hook) Argv(p Phase) []string {
	if len(h.Command) > 0 {
		return append(append([]string(nil), h.Command...), string(p))
	}
	return []string{"node", h.Path, string(p)}
}

// Invoked names the hook the way records and messages show it: the script as written,
// or the command line.
func (h Hook) Invoked() string {
	if h.Go != "" {
		return "go:" + h.Go
	}
	if len(h.Command) > 0 {
		return strings.Join(h.Command, " ")
	}
	return h.Script
}

// EnvVar is a variable the hooks need.
type EnvVar struct {
	Variable string
	Purpose  string
	// Secret is the entry's secret: true|false, nil when it does not say; IsSecret decides.
	Secret *bool
}

// Capabilities are what the profile's hooks are known to report.
type Capabilities struct {
	MultiTurn bool
	Calls     bool
	Usage     bool
}

// TimeoutFor returns the effective timeout of phase p.
func (p *Profile) TimeoutFor(ph Phase) time.Duration {
	if h, ok := p.Hooks[ph]; ok && h.Timeout > 0 {
		return h.Timeout
	}
	return ph.DefaultTimeout()
}

var (
	profileKeys = []string{"id", "name", "hooks", "env", "hook_env", "capabilities", "concurrency", "pricing", "rate", "traces", "traces_quiet_ms", "canary", "write_tools", "tools", "sources", "mcp"}
	hookKeys    = []string{"script", "timeout_seconds", "delay_seconds", "command"}
	envKeys     = []string{"variable", "purpose", "secret"}
	capKeys     = []string{"multi_turn", "calls", "usage"}
	phaseKeys   = []string{"prepare", "open", "execute", "close", "collect"}

	envVarRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// LoadProfile reads and validates the profile at file; hook paths resolve against agentDir.
// Every problem is reported at once, each with file:line:column.
func LoadProfile(file, agentDir string) (*Profile, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read profile: %w", err)
	}
	return ParseProfile(file, agentDir, data)
}

// runKey reads the keys that shape a run rather than reach the agent: its price table,
// its trace receiver and its rate.
func (p *Profile) runKey(e *errs, f field) {
	switch f.key {
	case "pricing":
		p.parsePricing(e, f)
	case "traces", "traces_quiet_ms":
		p.parseTraces(e, f)
	case "rate":
		p.Rate, p.RateAt = str(e, f), Pos{Line: f.v.Line, Column: f.v.Column}
	}
}

// Err is err, found in the value of key written at pos, as an error at that place in the
// profile's file.
func (p *Profile) Err(pos Pos, key string, err error) error {
	return &PosError{File: p.File, Line: pos.Line, Column: pos.Column, Msg: key + " " + err.Error()}
}

// ParseProfile is LoadProfile on bytes already read.
func ParseProfile(file, agentDir string, data []byte) (*Profile, error) {
	e := &errs{file: file}
	p := &Profile{File: file, AgentDir: agentDir, Source: data, SHA256: ContentHash(data),
		Hooks: map[Phase]Hook{}, Concurrency: 1}
	root := parseDoc(e, data)
	if root == nil {
		return nil, e.err()
	}
	var idNode, hooksNode *yaml.Node
	for _, f := range fields(e, root, "profile", profileKeys, true) {
		switch f.key {
		case "id":
			p.ID, idNode = str(e, f), f.v
		case "name":
			p.Name = str(e, f)
		case "hooks":
			hooksNode = f.kNode
			p.parseHooks(e, f)
		case "env":
			p.parseEnv(e, f)
		case "hook_env":
			p.parseHookEnv(e, f)
		case "capabilities":
			for _, c := range fields(e, f.v, "capabilities", capKeys, true) {
				switch c.key {
				case "multi_turn":
					p.Capabilities.MultiTurn = boolean(e, c)
				case "calls":
					p.Capabilities.Calls = boolean(e, c)
				case "usage":
					p.Capabilities.Usage = boolean(e, c)
				}
			}
		case "canary", "write_tools", "mcp":
			p.redteamKey(e, f)
		case "tools":
			p.Tools = strList(e, f)
			if p.Tools == nil {
				p.Tools = []string{}
			}
		case "sources":
			p.Sources = strList(e, f)
		case "pricing", "traces", "traces_quiet_ms", "rate":
			p.runKey(e, f)
		case "concurrency":
			if n, ok := integer(e, f); ok {
				if n < 1 {
					e.at(f.v, "concurrency must be at least 1, got %d", n)
				} else {
					p.Concurrency, p.ConcurrencyGiven = n, true
				}
			}
		}
	}
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	switch {
	case p.ID == "":
		e.at(root, "missing key \"id\" (it must equal the file name, %q)", base)
	case !record.ValidID(p.ID):
		e.at(idNode, "id %q may hold only letters, digits, '-' and '_'", p.ID)
	case p.ID != base:
		e.at(idNode, "id %q does not match the file name %q", p.ID, base)
	}
	if p.Recorded != nil {
		// Replayed into the run's receiver, its calls and usage from the spans.
		p.Traces, p.Capabilities.Calls, p.Capabilities.Usage, p.Capabilities.MultiTurn = true, true, true, true
	}
	if _, ok := p.Hooks[Execute]; !ok && p.GoAgent != "" {
		p.Hooks[Execute] = Hook{Go: p.GoAgent} // every Go agent has Execute
	}
	if _, ok := p.Hooks[Execute]; !ok {
		n := hooksNode
		if n == nil {
			n = root
		}
		e.at(n, "missing hooks.execute: a profile must define an execute hook")
	}
	if p.Name == "" {
		p.Name = p.ID
	}
	if err := e.err(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Profile) parseHooks(e *errs, f field) {
	all := fields(e, f.v, "hooks", append([]string{"go", "traces"}, phaseKeys...), true)
	for _, h := range all {
		if h.key != "traces" {
			continue
		}
		if len(all) > 1 {
			e.at(h.kNode, "hooks.traces replays traces recorded elsewhere and calls no agent: it takes no other hook (found %d more keys in hooks)", len(all)-1)
			return
		}
		if p.parseRecorded(e, h); p.Recorded != nil {
			p.GoAgent, p.GoAgentAt = RecordedAgent, p.Recorded.At
			p.Hooks[Execute] = Hook{Go: p.GoAgent}
		}
		return
	}
	for _, h := range all {
		if h.key == "go" {
			p.GoAgentAt = Pos{h.v.Line, h.v.Column}
			if p.GoAgent = str(e, h); p.GoAgent == "" {
				e.at(h.v, "hooks.go must name the Go agent the test package registers (rooktest.RegisterAgent)")
			}
		}
	}
	for _, h := range all {
		if h.key == "go" {
			continue
		}
		if p.GoAgent != "" {
			p.parseGoPhase(e, h)
			continue
		}
		ph := Phase(h.key)
		hook := Hook{}
		where := "hooks." + h.key
		switch h.v.Kind {
		case yaml.ScalarNode:
			hook.Script = str(e, h)
		case yaml.MappingNode:
			for _, k := range fields(e, h.v, where, hookKeys, true) {
				switch k.key {
				case "script":
					hook.Script = str(e, k)
				case "command":
					hook.Command = strList(e, k)
					if len(hook.Command) == 0 {
						e.at(k.v, "%s.command must name a program", where)
					}
				case "timeout_seconds":
					if v, ok := number(e, k); ok {
						if v == 0 {
							e.at(k.v, "%s.timeout_seconds must be positive", where)
						}
						hook.Timeout = time.Duration(v * float64(time.Second))
					}
				case "delay_seconds":
					if v, ok := number(e, k); ok {
						hook.Delay = time.Duration(v * float64(time.Second))
					}
				}
			}
		default:
			e.at(h.v, "%s must be a script path or a mapping with script, not %s", where, kindName(h.v))
			continue
		}
		switch {
		case hook.Script != "" && len(hook.Command) > 0:
			e.at(h.v, "%s sets both script and command; command already names the program and its arguments", where)
			continue
		case hook.Script == "" && len(hook.Command) == 0:
			e.at(h.v, "%s needs a script path (or a command)", where)
			continue
		case hook.Script != "":
			hook.Path = hook.Script
			if !filepath.IsAbs(hook.Path) {
				hook.Path = filepath.Join(p.AgentDir, hook.Script)
			}
			if st, err := os.Stat(hook.Path); err != nil {
				e.at(h.v, "%s: hook script %s does not exist (paths resolve against %s)", where, hook.Script, p.AgentDir)
			} else if st.IsDir() {
				e.at(h.v, "%s: hook script %s is a directory", where, hook.Script)
			}
		}
		p.Hooks[ph] = hook
	}
}

// parseGoPhase reads a phase of a profile whose hooks are a Go agent's methods: only its
// timeout and delay, as the agent's method is its script.
func (p *Profile) parseGoPhase(e *errs, h field) {
	where := "hooks." + h.key
	hook := Hook{Go: p.GoAgent}
	if h.v.Kind != yaml.MappingNode {
		e.at(h.v, "%s: with hooks.go, a phase may give only timeout_seconds and delay_seconds (its method is the Go agent's)", where)
		return
	}
	for _, k := range fields(e, h.v, where, []string{"timeout_seconds", "delay_seconds"}, true) {
		v, ok := number(e, k)
		switch {
		case !ok:
		case k.key == "timeout_seconds" && v <= 0:
			e.at(k.v, "%s.timeout_seconds must be positive", where)
		case k.key == "timeout_seconds":
			hook.Timeout = time.Duration(v * float64(time.Second))
		default:
			hook.Delay = time.Duration(v * float64(time.Second))
		}
	}
	p.Hooks[Phase(h.key)] = hook
}

func (p *Profile) parseEnv(e *errs, f field) {
	if isNull(f.v) {
		return
	}
	if f.v.Kind != yaml.SequenceNode {
		e.at(f.v, "env must be a list of {variable, purpose, secret}, not %s", kindName(f.v))
		return
	}
	seen := map[string]bool{}
	for _, item := range f.v.Content {
		var v EnvVar
		for _, k := range fields(e, item, "env entry", envKeys, true) {
			switch k.key {
			case "variable":
				v.Variable = str(e, k)
			case "purpose":
				v.Purpose = str(e, k)
			case "secret":
				if !isNull(k.v) {
					b := boolean(e, k)
					v.Secret = &b
				}
			}
		}
		switch {
		case item.Kind != yaml.MappingNode:
		case v.Variable == "":
			e.at(item, "env entry needs a variable name")
		case !envVarRE.MatchString(v.Variable):
			e.at(item, "env variable %q is not a valid variable name", v.Variable)
		case strings.HasPrefix(v.Variable, "ROOK_"):
			e.at(item, "env variable %q: ROOK_* variables are set by the runtime", v.Variable)
		case seen[v.Variable]:
			e.at(item, "env variable %q is declared twice", v.Variable)
		default:
			seen[v.Variable] = true
			p.Env = append(p.Env, v)
		}
	}
}

func (p *Profile) parseHookEnv(e *errs, f field) {
	if isNull(f.v) {
		return
	}
	if f.v.Kind != yaml.MappingNode {
		e.at(f.v, "hook_env must be a mapping of variable names to values, not %s", kindName(f.v))
		return
	}
	p.HookEnv = map[string]string{}
	for i := 0; i+1 < len(f.v.Content); i += 2 {
		k, v := f.v.Content[i], f.v.Content[i+1]
		if !envVarRE.MatchString(k.Value) {
			e.at(k, "hook_env key %q is not a valid variable name", k.Value)
			continue
		}
		if strings.HasPrefix(k.Value, "ROOK_") {
			e.at(k, "hook_env key %q: ROOK_* variables are set by the runtime in their scopes; choose another name", k.Value)
			continue
		}
		if v.Kind != yaml.ScalarNode {
			e.at(v, "hook_env.%s must be a string, not %s", k.Value, kindName(v))
			continue
		}
		p.HookEnv[k.Value] = v.Value
	}
}

// MissingEnv returns an error naming every declared variable that lookup does not find
// (or finds empty), with its purpose, or nil.
func (p *Profile) MissingEnv(lookup func(string) (string, bool)) error {
	var missing []string
	for _, v := range p.Env {
		if val, ok := lookup(v.Variable); ok && val != "" {
			continue
		}
		m := v.Variable
		if v.Purpose != "" {
			m += " (" + v.Purpose + ")"
		}
		missing = append(missing, m)
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("profile %s needs environment variables that are not set (or empty): %s", p.ID, strings.Join(missing, "; "))
}

// LoopbackAddr says whether addr is a loopback host (an IP or localhost) and a port.
func LoopbackAddr(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
