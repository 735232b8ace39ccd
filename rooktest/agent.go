package rooktest

import (
	"fmt"
	"path"
	"strings"

	"github.com/rookgo/rookgo/internal/goagent"
	"github.com/rookgo/rookgo/internal/spec"
)

// An agent written in Go can be tested in the test's own process: its profile says
// hooks: {go: name} instead of naming scripts, and a hand-written file of the test package
// registers it. Each lifecycle phase is then a method call, under the hook contract's
// rules: the phase's deadline is the method's context, what it returns is what a hook
// prints, a panic or an error fails the phase with its diagnosis, and a method that ignores
// its context fails it too. Records, verdicts and the judge are the same as for scripts.
type (
	// Agent is a Go agent; Execute is one turn.
	Agent = goagent.Agent
	// Preparer, Opener, Closer and Collector are the optional phases an Agent may have.
	Preparer  = goagent.Preparer
	Opener    = goagent.Opener
	Closer    = goagent.Closer
	Collector = goagent.Collector
	// Call is what a phase is given: what a hook gets through ROOK_* and stdin.
	Call = goagent.Call
	// Reply is what a phase returns: what a hook prints.
	Reply    = goagent.Reply
	ToolCall = goagent.ToolCall
	Usage    = goagent.Usage
)

// RegisterAgent makes the Go agent name, made by newAgent once per run, available to
// profiles whose hooks are hooks: {go: name}. Call it from an init function (or TestMain)
// of a hand-written file of the test package:
//
//	func init() { rooktest.RegisterAgent("helpdesk", helpdesk.New) }
//
// Registering a name twice panics, as registering a database/sql driver twice does.
func RegisterAgent(name string, newAgent func() (Agent, error)) {
	if err := goagent.Register(name, newAgent); err != nil {
		panic("rooktest: " + err.Error())
	}
}

// goAgentFor makes the profile's Go agent for this run and defines a phase for each method
// it has; nil for a profile of scripts.
func goAgentFor(p *spec.Profile, s Suite) (Agent, error) {
	if p.GoAgent == "" {
		return nil, nil
	}
	newAgent, ok := goagent.Lookup(p.GoAgent)
	if !ok {
		known := ""
		if names := goagent.Names(); len(names) > 0 {
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
	for _, ph := range goagent.Phases(a) {
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
