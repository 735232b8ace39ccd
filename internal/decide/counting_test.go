package decide

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rookgo/rookgo/internal/record"
)

// An excuse covers the agent's failures, never what Never lists, and never a pass.
func TestApplyExcuse(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		name    string
		v       record.Verdict
		by      string
		excused bool
	}{
		{"the agent failed, quarantined", record.Verdict{Status: record.Fail}, ExcuseQuarantine, true},
		{"Unable to Verify under the gate", record.Verdict{Status: record.UnableToVerify}, ExcuseGate, true},
		{"no excuse", record.Verdict{Status: record.Fail}, "", false},
		{"a pass", record.Verdict{Status: record.Pass}, ExcuseQuarantine, false},
		{"a hook failed", record.Verdict{Status: record.Fail, Failure: "execute: exited with status 3"}, ExcuseQuarantine, false},
		{"a compromise", record.Verdict{Status: record.Fail, Attack: record.Attack{Compromised: &yes}}, ExcuseGate, false},
		{"forbidden text", record.Verdict{Status: record.Fail, ForbiddenHits: []record.ForbiddenHit{{Text: "x"}}}, ExcuseQuarantine, false},
		{"an untrusted record", record.Verdict{Status: record.Fail, Untrusted: "C1 was Pass"}, ExcuseGate, false},
	} {
		v := tc.v
		ApplyExcuse(&v, tc.by)
		assert.Equal(t, tc.excused, Excused(&v), tc.name)
		if tc.excused {
			assert.Equal(t, tc.by, v.ExcusedBy, tc.name)
		} else {
			assert.Empty(t, v.ExcusedBy, tc.name)
		}
	}
}

// Flaky is a Pass and a Fail among the decided attempts.
func TestFlaky(t *testing.T) {
	at := func(s ...record.Status) []record.AttemptStatus {
		out := make([]record.AttemptStatus, len(s))
		for i := range s {
			out[i] = record.AttemptStatus{Attempt: i + 1, Status: s[i]}
		}
		return out
	}
	assert.False(t, Flaky(at(record.Pass, record.UnableToVerify, record.UnableToVerify)))
	assert.True(t, Flaky(at(record.Pass, record.Fail)))
	p, f, u := CountAttempts(at(record.Pass, record.Fail, record.UnableToVerify, ""))
	assert.Equal(t, []int{1, 1, 2}, []int{p, f, u})
}
