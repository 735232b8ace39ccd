package spec

import (
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/record"
)

// Recorded is a profile that judges traces recorded elsewhere instead of calling an agent
// (hooks: {traces: DIR}): each scenario's attempt is the conversation the files hold for
// it, replayed turn by turn into the run's trace receiver, so that everything after
// (observe, the checks, the judge, red team, reports) is what it is for a live agent.
type Recorded struct {
	// Dir holds the trace files (OTLP JSON, as the OpenTelemetry Collector's file exporter
	// writes them), resolved against the profile's folder.
	Dir string
	// Match is the span or resource attribute whose value names a conversation
	// (gen_ai.conversation.id unless the profile says), or MatchTraceID to match a trace's
	// own id.
	Match string
	// Conversations gives, by scenario id, the value a scenario's conversation has; a
	// scenario not listed looks for its own id.
	Conversations map[string]string
	At            Pos
}

// The defaults of hooks.traces.
const (
	DefaultMatch = "gen_ai.conversation.id"
	MatchTraceID = "trace_id"
)

// RecordedAgent is the name the replay of recorded traces runs under where a Go agent's
// would be shown ("go:recorded traces").
const RecordedAgent = "recorded traces"

// Conversation is the value the scenario's conversation has in the recorded traces.
func (r *Recorded) Conversation(scenario string) string {
	if v, ok := r.Conversations[scenario]; ok {
		return v
	}
	return scenario
}

// parseRecorded reads hooks.traces: a folder, or {dir, match, conversations}.
func (p *Profile) parseRecorded(e *errs, f field) {
	r := &Recorded{Match: DefaultMatch, At: Pos{f.v.Line, f.v.Column}}
	dirNode := f.v
	switch f.v.Kind {
	case yaml.ScalarNode:
		r.Dir = str(e, f)
	case yaml.MappingNode:
		dirNode = nil
		for _, k := range fields(e, f.v, "hooks.traces", []string{"dir", "match", "conversations"}, true) {
			switch k.key {
			case "dir":
				r.Dir, dirNode = str(e, k), k.v
			case "match":
				if r.Match = str(e, k); r.Match == "" {
					e.at(k.v, "hooks.traces.match names the attribute whose value is a conversation's (%s), or %s", DefaultMatch, MatchTraceID)
				}
			case "conversations":
				r.Conversations = map[string]string{}
				for _, c := range fields(e, k.v, "hooks.traces.conversations", nil, false) {
					if !record.ValidID(c.key) {
						e.at(c.kNode, "hooks.traces.conversations: %q is not a scenario id", c.key)
						continue
					}
					if v := str(e, c); v != "" {
						r.Conversations[c.key] = v
					} else {
						e.at(c.v, "hooks.traces.conversations.%s must give the conversation's %s", c.key, r.Match)
					}
				}
			}
		}
	default:
		e.at(f.v, "hooks.traces must be the folder of the recorded trace files, or {dir, match, conversations}, not %s", kindName(f.v))
		return
	}
	if r.Dir == "" {
		e.at(f.v, "hooks.traces needs dir: the folder of the recorded trace files (OTLP JSON)")
		return
	}
	path := r.Dir
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.AgentDir, path)
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		e.at(dirNode, "hooks.traces: %s is not a folder (paths resolve against %s)", r.Dir, p.AgentDir)
		return
	}
	r.Dir = path
	p.Recorded = r
}
