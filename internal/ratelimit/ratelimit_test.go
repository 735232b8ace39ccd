package ratelimit

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Rate{"60/m": {60, time.Minute}, " 5 / s ": {5, time.Second}, "1000/h": {1000, time.Hour}} {
		got, err := Parse(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"60", "0/m", "-1/m", "60/d", "x/m", "60/"} {
		_, err := Parse(in)
		assert.ErrorContains(t, err, "want R/s, R/m or R/h", in)
	}
	assert.Equal(t, "60/m", Rate{60, time.Minute}.String())
	assert.Equal(t, Rate{15, time.Minute}, Rate{60, time.Minute}.Share(4))
	assert.Equal(t, Rate{1, 2 * time.Minute}, Rate{2, time.Minute}.Share(4))
	assert.Equal(t, Rate{60, time.Minute}, Rate{60, time.Minute}.Share(1))
}

// maxInWindow is the most starts any window of length w holds.
func maxInWindow(starts []time.Time, w time.Duration) int {
	most := 0
	for i := range starts {
		n := 0
		for _, s := range starts[i:] {
			if s.Sub(starts[i]) < w {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// With 8 goroutines starting as fast as they can, no window of the period holds more
// than N starts, and the limiter does not hold back more than it must.
func TestLimiterHoldsEveryWindow(t *testing.T) {
	l := New(Rate{N: 10, Per: 200 * time.Millisecond})
	var mu sync.Mutex
	var starts []time.Time
	var wg sync.WaitGroup
	begin := time.Now()
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				tk, err := l.Wait(context.Background())
				require.NoError(t, err)
				mu.Lock()
				starts = append(starts, tk.At())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	took := time.Since(begin)
	sortTimes(starts)
	assert.Len(t, starts, 40)
	assert.LessOrEqual(t, maxInWindow(starts, 200*time.Millisecond), 10)
	assert.GreaterOrEqual(t, took, 600*time.Millisecond, "40 starts at 10 a 200 ms take three full windows")
	assert.Less(t, took, 900*time.Millisecond, "and not much more: three windows and their margins")
}

// A start counts from when what it let through began, when the caller says that was later.
func TestStartedMovesTheStart(t *testing.T) {
	l := New(Rate{N: 1, Per: 100 * time.Millisecond})
	tk, err := l.Wait(context.Background())
	require.NoError(t, err)
	l.Started(tk, tk.At().Add(200*time.Millisecond)) // the process began 200 ms later
	l.Started(tk, tk.At().Add(-time.Second))         // an earlier time moves nothing
	next, err := l.Wait(context.Background())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, next.At().Sub(tk.At()), 105*time.Millisecond, "a window and its margin after the start as it began")
	assert.GreaterOrEqual(t, time.Since(tk.At().Add(-200*time.Millisecond)), 300*time.Millisecond)
}

func TestPauseHoldsEveryStart(t *testing.T) {
	l := New(Rate{})
	_, err := l.Wait(context.Background())
	require.NoError(t, err)
	l.Pause(150 * time.Millisecond)
	l.Pause(50 * time.Millisecond) // a shorter pause does not cut the longer one
	begin := time.Now()
	_, err = l.Wait(context.Background())
	require.NoError(t, err)
	assert.GreaterOrEqual(t, time.Since(begin), 140*time.Millisecond)

	l.Pause(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = l.Wait(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var none *Limiter
	_, err = none.Wait(context.Background())
	assert.NoError(t, err, "no limiter, no wait")
}

func sortTimes(ts []time.Time) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Before(ts[j-1]); j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}
