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
	ev := observe.Said(observe.Turn{Output: "ok", CallsObserved: true, Calls: []record.Call{{Name: "a\x00b"}}})
	for _, mode := range []string{"strict", "unordered"} {
		c := &check.CallSequence{Names: []string{"a", "b"}, Mode: mode}
		assert.Equal(t, record.Fail, check.Decide(c, ev).Status, mode)
	}
	ev = observe.Said(observe.Turn{Output: "ok", CallsObserved: true, Calls: []record.Call{{Name: "b"}, {Name: "a"}}})
	assert.Equal(t, record.Pass, check.Decide(&check.CallSequence{Names: []string{"a", "b"}, Mode: "unordered"}, ev).Status)
	assert.Equal(t, record.Fail, check.Decide(&check.CallSequence{Names: []string{"a", "b"}, Mode: "strict"}, ev).Status)
}
