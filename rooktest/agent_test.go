package rooktest

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/spec"
)

type opensOnly struct{}

func (opensOnly) Execute(context.Context, Call) (Reply, error) { return Reply{Output: "hi"}, nil }
func (opensOnly) Open(context.Context, Call) (Reply, error)    { return Reply{}, nil }

// A Go agent's phases are its methods: the profile's execute and open are defined, a time
// limit for a phase it has no method for is refused, and so are a factory that fails, or
// makes nothing, and a name registered twice.
func TestAGoAgentsPhasesAreItsMethods(t *testing.T) {
	RegisterAgent("agent-test-opens", func() (Agent, error) { return opensOnly{}, nil })
	RegisterAgent("agent-test-fails", func() (Agent, error) { return nil, errors.New("no model key") })
	RegisterAgent("agent-test-nil", func() (Agent, error) { return nil, nil })
	assert.PanicsWithValue(t, `rooktest: register a Go agent: "agent-test-opens" is registered twice`, func() {
		RegisterAgent("agent-test-opens", func() (Agent, error) { return opensOnly{}, nil })
	})
	profile := func(goAgent string, hooks map[spec.Phase]spec.Hook) *spec.Profile {
		return &spec.Profile{ID: "p", GoAgent: goAgent, Hooks: hooks}
	}
	s := Suite{Agent: "shop"}

	p := profile("agent-test-opens", map[spec.Phase]spec.Hook{spec.Execute: {Go: "agent-test-opens"}})
	a, err := goAgentFor(p, s)
	require.NoError(t, err)
	assert.Equal(t, opensOnly{}, a)
	assert.Equal(t, map[spec.Phase]spec.Hook{spec.Execute: {Go: "agent-test-opens"}, spec.Open: {Go: "agent-test-opens"}}, p.Hooks)

	p = profile("agent-test-opens", map[spec.Phase]spec.Hook{spec.Execute: {Go: "agent-test-opens"}, spec.Collect: {Go: "agent-test-opens"}})
	_, err = goAgentFor(p, s)
	assert.EqualError(t, err, `profile p gives hooks.collect a time limit, and the Go agent "agent-test-opens" has no collect method`)

	_, err = goAgentFor(profile("agent-test-fails", map[spec.Phase]spec.Hook{}), s)
	assert.EqualError(t, err, `make the Go agent "agent-test-fails" of profile p: no model key`)
	_, err = goAgentFor(profile("agent-test-nil", map[spec.Phase]spec.Hook{}), s)
	assert.EqualError(t, err, `make the Go agent "agent-test-nil" of profile p: it made none`)

	a, err = goAgentFor(profile("", map[spec.Phase]spec.Hook{}), s)
	assert.NoError(t, err)
	assert.Nil(t, a, "a profile of scripts has no Go agent")
}
