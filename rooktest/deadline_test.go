package rooktest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestCutoffs(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		left            time.Duration
		startBy, stopAt time.Duration // after now
	}{
		// go test's default: stop starting after 8 minutes, stop hooks after 9.
		{10 * time.Minute, 8 * time.Minute, 9 * time.Minute},
		{time.Hour, 48 * time.Minute, 54 * time.Minute},
		// A short timeout keeps at least minStartMargin free of new scenarios.
		{20 * time.Second, 15 * time.Second, 18 * time.Second},
		// Shorter than the margin: nothing starts.
		{3 * time.Second, -2 * time.Second, 2700 * time.Millisecond},
		// The grace period has a floor.
		{time.Second, -4 * time.Second, 800 * time.Millisecond},
	} {
		startBy, stopAt := cutoffs(now, now.Add(tc.left))
		assert.Equal(t, tc.startBy, startBy.Sub(now), "start cutoff with %s left", tc.left)
		assert.Equal(t, tc.stopAt, stopAt.Sub(now), "stop cutoff with %s left", tc.left)
		assert.True(t, !stopAt.Before(startBy), "hooks are stopped no earlier than scenarios stop starting (%s left)", tc.left)
	}
}
