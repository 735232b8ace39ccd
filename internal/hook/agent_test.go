package hook_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/hook"
)

// agentFunc is an agent whose Execute is f.
type agentFunc func(context.Context, hook.Call) (hook.Reply, error)

func (f agentFunc) Execute(ctx context.Context, c hook.Call) (hook.Reply, error) {
	return f(ctx, c)
}

// full is an agent with every phase.
type full struct{ agentFunc }

func (full) Prepare(context.Context, hook.Call) (hook.Reply, error) {
	return hook.Reply{}, nil
}
func (full) Open(context.Context, hook.Call) (hook.Reply, error) {
	return hook.Reply{Conversation: "conv-1"}, nil
}
func (full) Close(context.Context, hook.Call) (hook.Reply, error) { return hook.Reply{}, nil }
func (full) Collect(context.Context, hook.Call) (hook.Reply, error) {
	return hook.Reply{Data: map[string]any{"ledger": map[string]any{"balance": 800}}}, nil
}

func execute(c hook.Call) hook.Call { c.Phase = "execute"; c.Turn = 1; return c }

// A reply is what a hook would print, read by the same parser: calls observed as none are
// an empty list, not an absent key; what the agent writes to os.Stdout is not its output.
func TestAReplyIsAHooksOutput(t *testing.T) {
	a := agentFunc(func(_ context.Context, c hook.Call) (hook.Reply, error) {
		fmt.Println(`{"output": "printed, not returned"}`)
		in, out := int64(5), int64(7)
		return hook.Reply{Output: "you said: " + c.Message, Conversation: "conv-9", Calls: []hook.ToolCall{},
			Usage: &hook.Usage{Input: &in, Output: &out}}, nil
	})
	res, err := hook.RunAgent(context.Background(), a, "echo", execute(hook.Call{Message: "hello"}), time.Second)
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	out, err := hook.ParseOutput(res.Stdout, true)
	require.NoError(t, err)
	assert.Equal(t, "you said: hello", out.Reply)
	assert.Equal(t, "conv-9", out.Conversation)
	assert.True(t, out.CallsObserved, "an empty list is calls observed: none")
	assert.Empty(t, out.Calls)
	require.NotNil(t, out.Usage)
	assert.Equal(t, int64(7), *out.Usage.Output)

	res, err = hook.RunAgent(context.Background(), full{a}, "echo", hook.Call{Phase: "collect"}, time.Second)
	require.NoError(t, err)
	out, err = hook.ParseOutput(res.Stdout, false)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"balance": int64(800)}, out.Data["ledger"], "Data's keys are the object's")
}

// A hanging, a panicking and a context-ignoring agent each fail the call with a reason;
// an error is a failure with the error as its diagnosis.
func TestAFailingAgentFailsItsCall(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	tests := []struct {
		name  string
		agent agentFunc
		check func(t *testing.T, res *hook.Result, err error)
	}{
		{"hangs until its context ends", func(ctx context.Context, _ hook.Call) (hook.Reply, error) {
			<-ctx.Done()
			return hook.Reply{}, ctx.Err()
		}, func(t *testing.T, res *hook.Result, err error) {
			assert.True(t, res.TimedOut)
			assert.Empty(t, res.Left, "it returned when asked")
			assert.EqualError(t, err, "timed out after 100ms")
		}},
		{"panics", func(context.Context, hook.Call) (hook.Reply, error) {
			var replies []hook.Reply
			return replies[len(replies)-1], nil // no reply yet

		}, func(t *testing.T, res *hook.Result, err error) {
			assert.Equal(t, 2, res.ExitCode)
			assert.Contains(t, res.Stderr, "panic: runtime error: index out of range [-1]")
			assert.Contains(t, res.Stderr, "agent_test.go", "the stack names where")
			assert.EqualError(t, err, "panicked: panic: runtime error: index out of range [-1]")
		}},
		{"ignores its context", func(context.Context, hook.Call) (hook.Reply, error) {
			<-release
			return hook.Reply{Output: "too late"}, nil
		}, func(t *testing.T, res *hook.Result, err error) {
			assert.True(t, res.TimedOut)
			require.Len(t, res.Left, 1)
			assert.Contains(t, res.Left[0], "the goroutine of go:agent's execute method, which did not return within 2s of its context's end")
			assert.ErrorContains(t, err, "the method ignored its context: its goroutine is left running")
			assert.GreaterOrEqual(t, res.Duration(), 100*time.Millisecond+hook.KillGrace)
		}},
		{"returns an error", func(context.Context, hook.Call) (hook.Reply, error) {
			return hook.Reply{}, errors.New("the model is down")
		}, func(t *testing.T, res *hook.Result, err error) {
			assert.Equal(t, 1, res.ExitCode)
			assert.Equal(t, "the model is down", res.Stderr)
			assert.EqualError(t, err, "returned an error: the model is down")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := hook.RunAgent(context.Background(), tc.agent, "agent", execute(hook.Call{}), 100*time.Millisecond)
			require.Error(t, err)
			tc.check(t, res, err)
		})
	}
}

// A run that is interrupted stops the call: the method's context ends, and the call says
// it was stopped, not that it failed.
func TestAnInterruptedCallIsStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	a := agentFunc(func(ctx context.Context, _ hook.Call) (hook.Reply, error) {
		close(started)
		<-ctx.Done()
		return hook.Reply{}, ctx.Err()
	})
	go func() { <-started; cancel() }()
	res, err := hook.RunAgent(ctx, a, "agent", execute(hook.Call{}), time.Minute)
	require.Error(t, err)
	assert.True(t, res.Stopped)
	assert.False(t, res.TimedOut)
}

func TestPhasesAndRegistry(t *testing.T) {
	plain := agentFunc(func(context.Context, hook.Call) (hook.Reply, error) { return hook.Reply{}, nil })
	assert.Equal(t, []string{"execute"}, hook.AgentPhases(plain))
	assert.Equal(t, []string{"prepare", "open", "execute", "close", "collect"}, hook.AgentPhases(full{plain}))
	_, err := hook.RunAgent(context.Background(), plain, "plain", hook.Call{Phase: "open"}, time.Second)
	assert.EqualError(t, err, "go:plain has no open method")

	factory := func() (hook.Agent, error) { return plain, nil }
	require.NoError(t, hook.RegisterAgent("registry-test", factory))
	assert.EqualError(t, hook.RegisterAgent("registry-test", factory), `register a Go agent: "registry-test" is registered twice`)
	_, ok := hook.LookupAgent("registry-test")
	assert.True(t, ok)
	assert.Contains(t, hook.AgentNames(), "registry-test")
}

func TestCallGetenv(t *testing.T) {
	c := hook.Call{Env: []string{"A=1", "B=two=2", "A=3"}}
	assert.Equal(t, "3", c.Getenv("A"), "the last wins, as in an environment")
	assert.Equal(t, "two=2", c.Getenv("B"))
	assert.Empty(t, c.Getenv("C"))
}

// A Go agent's reply keeps its numbers whole, as a hook's stdout does: a call argument
// past 2^53 is not rounded on its way to the record.
func TestAReplyKeepsLargeNumbersWhole(t *testing.T) {
	a := agentFunc(func(context.Context, hook.Call) (hook.Reply, error) {
		return hook.Reply{Output: "done", Calls: []hook.ToolCall{{Name: "transfer", Arguments: map[string]any{"account": int64(1234567890123456789)}}},
			Data: map[string]any{"note": "beside the reply"}}, nil
	})
	res, err := hook.RunAgent(context.Background(), a, "big", execute(hook.Call{Message: "pay"}), time.Second)
	require.NoError(t, err)
	assert.Contains(t, string(res.Stdout), `1234567890123456789`)
	out, err := hook.ParseOutput(res.Stdout, true)
	require.NoError(t, err)
	require.Len(t, out.Calls, 1)
	assert.Equal(t, int64(1234567890123456789), out.Calls[0].Arguments["account"])
}
