package spec_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/spec"
)

// A red-team key at the top level of a scenario is refused as a typo, naming where it
// belongs; it is never silently unused.
func TestMisplacedRedteamKey(t *testing.T) {
	sc, err := spec.ParseScenario("SC-9.yaml", []byte("id: SC-9\ngoal: g\nclass: adversarial\nsuccess_signals: [/leak/]\nredteam:\n  attack_category: prompt_injection\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: x}}\n"))
	require.NoError(t, err)
	require.Len(t, sc.Typos, 1)
	assert.Contains(t, sc.Typos[0], `SC-9.yaml:4:1: key "success_signals" belongs under redteam: (redteam.success_signals)`)
}
