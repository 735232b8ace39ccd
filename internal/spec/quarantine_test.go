package spec

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadQuarantine(t *testing.T) {
	today := time.Date(2026, 12, 4, 15, 0, 0, 0, time.UTC)
	ids := map[string]bool{"SC-1": true, "SC-2": true, "SC-3": true}
	write := func(t *testing.T, text string) string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, QuarantineFile), []byte(text), 0o644))
		return dir
	}

	q, err := LoadQuarantine(t.TempDir(), today, ids)
	require.NoError(t, err)
	assert.Empty(t, q, "no file, no quarantine")

	q, err = LoadQuarantine(write(t, `quarantine:
  - scenario: SC-1
    reason: the sandbox's refunds API is down (AG-123)
    expires: 2026-12-04
`), today, ids)
	require.NoError(t, err)
	assert.Equal(t, "quarantined until 2026-12-04: the sandbox's refunds API is down (AG-123)", q["SC-1"].Says(),
		"an entry holds through its expiry date")

	dir := write(t, `quarantine:
  - scenario: SC-1
    reason: flaky sandbox
    expires: 2026-12-03
  - scenario: SC-9
    reason: x
    expires: 2027-01-01
  - scenario: SC-2
    expires: 2027/01/01
  - scenario: SC-3
    reason: r
  - scenario: SC-3
    reason: r
    expires: 2027-01-01
    owner: me
`)
	_, err = LoadQuarantine(dir, today, ids)
	require.Error(t, err)
	file := filepath.Join(dir, QuarantineFile)
	for _, want := range []string{
		file + ":4:14: the quarantine of SC-1 expired after 2026-12-03 (flaky sandbox): fix the scenario or the agent and remove the entry, or set a later date",
		file + `:5:5: quarantine names scenario "SC-9", which the agent does not have`,
		file + `:9:14: expires must be a date, YYYY-MM-DD, got "2027/01/01"`,
		file + ":8:5: the quarantine of SC-2 needs a reason",
		file + ":10:5: the quarantine of SC-3 needs expires",
		file + `:15:5: unknown key "owner" in a quarantine entry`,
		file + ":12:5: scenario SC-3 is quarantined twice (first on line 10)",
	} {
		assert.Contains(t, err.Error(), want)
	}

	_, err = LoadQuarantine(write(t, "quarantine: SC-1\n"), today, ids)
	assert.ErrorContains(t, err, ":1:13: quarantine must be a list of {scenario, reason, expires}, not a scalar")
}
