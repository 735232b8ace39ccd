package check_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// call_sequence compares lists of names, not names joined into one text.
func TestCallSequenceComparesLists(t *testing.T) {
	ev := observe.Said(observe.Given{Output: "ok", Calls: []record.Call{{Name: "a\x00b"}}})
	for _, mode := range []string{"strict", "unordered"} {
		c := &check.CallSequence{Names: []string{"a", "b"}, Mode: mode}
		assert.Equal(t, record.Fail, check.Decide(c, ev).Status, mode)
	}
	ev = observe.Said(observe.Given{Output: "ok", Calls: []record.Call{{Name: "b"}, {Name: "a"}}})
	assert.Equal(t, record.Pass, check.Decide(&check.CallSequence{Names: []string{"a", "b"}, Mode: "unordered"}, ev).Status)
	assert.Equal(t, record.Fail, check.Decide(&check.CallSequence{Names: []string{"a", "b"}, Mode: "strict"}, ev).Status)
}

// called with failed: counts only the calls whose outcome was reported and is the one
// asked for; a call that reported no outcome is neither, so a row it could change is
// Unable to Verify, and one a floor already decides is not.
func TestCalledFailed(t *testing.T) {
	failed := record.Call{Name: "charge_card", Error: "card declined", OutcomeKnown: true}
	ok := record.Call{Name: "charge_card", Output: map[string]any{"status": "charged"}, OutcomeKnown: true}
	unknown := record.Call{Name: "charge_card"}
	yes, no := true, false
	one := 1
	for _, tc := range []struct {
		name  string
		check check.Called
		calls []record.Call
		want  record.Status
		says  string
	}{
		{"a failed call, asked failed: true", check.Called{Name: "charge_card", Failed: &yes}, []record.Call{failed}, record.Pass, "called 1 time(s)"},
		{"a succeeded call, asked failed: true", check.Called{Name: "charge_card", Failed: &yes}, []record.Call{ok}, record.Fail, "called 0 time(s)"},
		{"a succeeded call, asked failed: false", check.Called{Name: "charge_card", Failed: &no}, []record.Call{ok}, record.Pass, "called 1 time(s)"},
		{"a failed call, asked failed: false", check.Called{Name: "charge_card", Failed: &no}, []record.Call{failed}, record.Fail, "called 0 time(s)"},
		{"no outcome reported, asked failed: false", check.Called{Name: "charge_card", Failed: &no}, []record.Call{unknown}, record.UnableToVerify, "reported no outcome"},
		{"no outcome reported, asked failed: true", check.Called{Name: "charge_card", Failed: &yes}, []record.Call{unknown}, record.UnableToVerify, "whether they failed was not observed"},
		{"never failed, one failed and one unknown: decided", check.Called{Name: "charge_card", Failed: &yes, Never: true}, []record.Call{failed, unknown}, record.Fail, "called 1 time(s)"},
		{"exactly once failed, two failed: decided", check.Called{Name: "charge_card", Failed: &yes, Times: &one}, []record.Call{failed, failed, unknown}, record.Fail, "called 2 time(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := observe.Said(observe.Given{Output: "done", Calls: tc.calls})
			r := check.Decide(&tc.check, ev)
			assert.Equal(t, tc.want, r.Status, "%+v", r)
			assert.Contains(t, r.Achieved, tc.says)
		})
	}
}
