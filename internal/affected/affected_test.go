package affected

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rookgo/rookgo/internal/spec"
)

// A change nothing places elsewhere affects a scenario: the agent's own code, most often.
// The scenario's sources, or its agent's profiles' sources, narrow it; the records, other
// agents' files, other scenarios' files and generated tests are shown to leave it alone.
func TestAChangeNothingPlacesAffects(t *testing.T) {
	plain := &spec.Scenario{ID: "SC-1"}
	sourced := &spec.Scenario{ID: "SC-2", Sources: []string{"docs/refunds.md"}}
	for _, tc := range []struct {
		name     string
		sources  []string
		changed  []string
		affected map[string]string
	}{
		{"the agent's code, no sources anywhere", nil, []string{"agent/loop.go"},
			map[string]string{"SC-1": "agent/loop.go changed, and nothing shows it leaves the scenario alone"}},
		{"the agent's code, inside the profile's sources", []string{"./agent/"}, []string{"agent/loop.go"},
			map[string]string{"SC-1": "agent/loop.go changed, in the agent's sources (./agent/)"}},
		{"outside the profile's sources", []string{"agent/"}, []string{"README.md", "tools/x.py"}, map[string]string{}},
		{"what is shown to leave it alone", nil, []string{".rook/runs/x/run.yaml", "labels/bank.yaml", "scenarios/other/SC-9.yaml",
			"profiles/other/p.yaml", "scenarios/bank/SC-7.yaml", "scenarios/bank/demo_rook_test.go"}, map[string]string{}},
		{"a hand-written test file beside the scenarios", nil, []string{"scenarios/bank/main_test.go"},
			map[string]string{"SC-1": "scenarios/bank/main_test.go changed, and nothing shows"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits := Map(t.TempDir(), tc.changed, []Suite{{Agent: "bank", Profiles: []*spec.Profile{{ID: "p", Sources: tc.sources}},
				Scenarios: []*spec.Scenario{plain, sourced}}})["bank"]
			got := map[string]string{}
			for _, h := range hits {
				got[h.ScenarioID] = h.Why
			}
			assert.Len(t, got, len(tc.affected), "%v", got)
			for id, why := range tc.affected {
				assert.Contains(t, got[id], why, id)
			}
			assert.NotContains(t, got, "SC-2", "a scenario with sources of its own is affected only by them")
		})
	}
}
