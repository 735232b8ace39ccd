package lifecycle_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// TestCarryWhileRecording carries verdicts forward from many goroutines while run.yaml is
// being written, as a resumed run with concurrency > 1 does. make test runs it under -race.
func TestCarryWhileRecording(t *testing.T) {
	f := newRun(t, map[string]string{"FAKEHOOK_OPEN": "json:{}", "FAKEHOOK_CLOSE": "json:{}", "FAKEHOOK_COLLECT": "json:{}"}, "")
	var scenarios []*scenario.Scenario
	var included []record.Entry
	for i := range 8 {
		id := fmt.Sprintf("SC-%d", i+1)
		sc, err := scenario.Parse(id+".yaml", []byte("id: "+id+"\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: g}}\n"))
		require.NoError(t, err)
		scenarios = append(scenarios, sc)
		included = append(included, record.Entry{ScenarioID: id})
	}
	f.cfg.Included = included
	f.restart(t, nil)
	for _, sc := range scenarios {
		f.run.Scenario(context.Background(), sc, f.logs.add)
	}
	_, err := f.run.Finish(context.Background(), time.Now())
	require.NoError(t, err)

	prior, err := lifecycle.LoadPrior(f.cfg.RecordsRoot, "agent", f.run.ID)
	require.NoError(t, err)
	r, err := lifecycle.New(f.cfg, time.Now())
	require.NoError(t, err)
	var wg sync.WaitGroup
	for _, sc := range scenarios {
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, ok := r.Carry(prior, sc)
			assert.True(t, ok)
		}()
		go func() {
			defer wg.Done()
			for range 20 {
				assert.NoError(t, r.SetResumeFrom(prior.ID))
			}
		}()
	}
	wg.Wait()
	rep, err := r.Finish(context.Background(), time.Now())
	require.NoError(t, err)
	assert.Equal(t, 8, rep.Totals.CarriedForward)
}
