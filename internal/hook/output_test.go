package hook_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/record"
)

func TestParseOutput(t *testing.T) {
	tests := []struct {
		name, stdout string
		execute      bool
		wantErr      string
		check        func(t *testing.T, o *hook.Output)
	}{
		{name: "output", stdout: `{"output":"hi","conversation":"c"}`, execute: true, check: func(t *testing.T, o *hook.Output) {
			assert.Equal(t, "hi", o.Reply)
			assert.False(t, o.CallsObserved, "absent calls are not observable")
			assert.Nil(t, o.Usage)
		}},
		{name: "agent_reply wins", stdout: `{"output":"old","agent_reply":"new"}`, execute: true, check: func(t *testing.T, o *hook.Output) {
			assert.Equal(t, "new", o.Reply)
		}},
		{name: "empty calls observed", stdout: `{"output":"x","calls":[]}`, execute: true, check: func(t *testing.T, o *hook.Output) {
			assert.True(t, o.CallsObserved)
			assert.Empty(t, o.Calls)
		}},
		{name: "calls and usage", stdout: `{"output":"x","calls":[{"name":"refund","arguments":{"order":"A","n":2}}],"usage":{"input":12,"output":3}}`, execute: true, check: func(t *testing.T, o *hook.Output) {
			require.Len(t, o.Calls, 1)
			assert.Equal(t, "refund", o.Calls[0].Name)
			assert.Equal(t, map[string]any{"order": "A", "n": int64(2)}, o.Calls[0].Arguments)
			assert.Equal(t, record.Tokens(12, 3), o.Usage)
		}},
		{name: "rook normalised usage", stdout: `{"output":"x","usage":{"input_tokens":7,"output_tokens":1}}`, execute: true, check: func(t *testing.T, o *hook.Output) {
			assert.Equal(t, record.Tokens(7, 1), o.Usage)
		}},
		{name: "empty stdout outside execute", stdout: "", check: func(t *testing.T, o *hook.Output) { assert.Nil(t, o.Data) }},
		{name: "empty stdout in execute", stdout: "  \n", execute: true, wantErr: "printed nothing on stdout"},
		{name: "not json", stdout: "Traceback: boom", execute: true, wantErr: `stdout is not JSON (invalid character 'T' looking for beginning of value): "Traceback: boom"`},
		{name: "two objects", stdout: `{"output":"a"}{"output":"b"}`, execute: true, wantErr: "more than one JSON value"},
		{name: "array", stdout: `[1,2]`, execute: true, wantErr: "not an object"},
		{name: "no output", stdout: `{"reply":"x"}`, execute: true, wantErr: `no "output" (or "agent_reply")`},
		{name: "output not a string", stdout: `{"output":{"text":"x"}}`, execute: true, wantErr: `"output" must be a string`},
		{name: "calls not a list", stdout: `{"output":"x","calls":{"name":"a"}}`, execute: true, wantErr: `"calls" must be a list`},
		{name: "call without name", stdout: `{"output":"x","calls":[{"arguments":{}}]}`, execute: true, wantErr: `"calls[0]" has no "name"`},
		{name: "reply not seen", stdout: `{"reply_unobserved":"content capture is off","calls":[]}`, execute: true, check: func(t *testing.T, o *hook.Output) {
			assert.False(t, o.HasReply)
			assert.Equal(t, "content capture is off", o.ReplyUnobserved)
		}},
		{name: "reply not seen, said at length", stdout: `{"reply_unobserved":"` + strings.Repeat("é", 400) + `"}`, execute: true, check: func(t *testing.T, o *hook.Output) {
			assert.LessOrEqual(t, len(o.ReplyUnobserved), 303)
			assert.True(t, utf8.ValidString(o.ReplyUnobserved))
		}},
		{name: "reply both seen and not", stdout: `{"output":"x","reply_unobserved":"off"}`, execute: true, wantErr: "either seen or not"},
		{name: "reply not seen, no reason", stdout: `{"reply_unobserved":" "}`, execute: true, wantErr: `"reply_unobserved" must say`},
		{name: "reply not seen, not text", stdout: `{"reply_unobserved":true}`, execute: true, wantErr: `"reply_unobserved" must say`},
		{name: "negative usage", stdout: `{"output":"x","usage":{"input":-1}}`, execute: true, wantErr: "non-negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := hook.ParseOutput([]byte(tc.stdout), tc.execute)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			tc.check(t, o)
		})
	}
}

func TestParseOutputQuotesOnlyTheFirstBytes(t *testing.T) {
	_, err := hook.ParseOutput([]byte("<html>"+strings.Repeat("a", 5000)), true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "first 200 of 5006 bytes")
	assert.Less(t, len(err.Error()), 600)
}

func TestParseOutputRefusesHostileShapes(t *testing.T) {
	deep := strings.Repeat("[", 8000) + strings.Repeat("]", 8000)
	_, err := hook.ParseOutput([]byte(`{"output": "hi", "x": `+deep+`}`), true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "more than 128")
	_, err = hook.ParseOutput([]byte(`{"output": "hi", "x": `+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`}`), true)
	assert.NoError(t, err, "100 deep is fine")

	for _, usage := range []string{`{"input": 1e30, "output": 1}`, `{"input": -5, "output": 1}`, `{"input": 2.5, "output": 1}`} {
		_, err := hook.ParseOutput([]byte(`{"output": "hi", "usage": `+usage+`}`), true)
		require.Error(t, err, usage)
		assert.Contains(t, err.Error(), "must be a non-negative whole count up to", usage)
	}
	out, err := hook.ParseOutput([]byte(`{"output": "hi", "usage": {"input": 1200, "output": 3.0}}`), true)
	require.NoError(t, err)
	assert.Equal(t, record.Tokens(1200, 3), out.Usage)
}

func TestUsageAliasesAndNearMisses(t *testing.T) {
	out, err := hook.ParseOutput([]byte(`{"output": "hi", "usage": {"prompt_tokens": 120, "completion_tokens": 30}, "tool_calls": [{"name": "x"}]}`), true)
	require.NoError(t, err)
	assert.Equal(t, record.Tokens(120, 30), out.Usage, "OpenAI's spellings are read as usage")
	assert.False(t, out.CallsObserved)
	assert.Equal(t, []string{`"tool_calls" is not read: the hook contract's key is "calls" ([{name, arguments, output?}])`}, out.Notes)
	out, err = hook.ParseOutput([]byte(`{"output": "hi", "calls": [], "tool_calls": []}`), true)
	require.NoError(t, err)
	assert.Empty(t, out.Notes, "no near miss when the contract's key is there too")
}

// An empty contract key beside a near miss that holds the agent's words is a near miss
// too, and says which channel went unread.
func TestEmptyKeyBesideANearMiss(t *testing.T) {
	out, err := hook.ParseOutput([]byte(`{"output": "", "reply": "I issued the refund", "calls": [], "tool_calls": [{"name": "issue_refund"}]}`), true)
	require.NoError(t, err)
	assert.Equal(t, []string{"calls", "output"}, out.Unread)
	assert.Len(t, out.Notes, 2)
	out, err = hook.ParseOutput([]byte(`{"output": "done", "reply": "other"}`), true)
	require.NoError(t, err)
	assert.Empty(t, out.Unread, "the contract's key holds the reply")
}
