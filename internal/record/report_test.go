package record_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rookgo/rookgo/internal/record"
)

func TestTotalsInvariants(t *testing.T) {
	ok := record.Totals{Planned: 5, Executed: 4, NotRun: 1, Passed: 2, Failed: 1, Unverifiable: 1, Decided: 3, PassRate: 2.0 / 3}
	assert.NoError(t, ok.Check())
	bad := ok
	bad.NotRun, bad.PassRate = 0, 0.5
	assert.EqualError(t, bad.Check(), "report totals break their invariants: planned 5 != executed 4 + not_run 0; pass_rate 0.5 != passed / decided 0.6666666666666666")
}
