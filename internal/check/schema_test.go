package check_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/schematest"
	"github.com/rookgo/rookgo/schemas"
)

// The scenario schema names every registered check and no other, and gives each exactly
// the params it reads, with the evidence param every check takes (llm_judge reads none,
// and the schema gives it Rook's).
func TestTheSchemaNamesEachCheckAndItsParams(t *testing.T) {
	var scenario map[string]any
	require.NoError(t, json.Unmarshal(schemas.Scenario, &scenario))
	criterion := scenario["$defs"].(map[string]any)["criterion"].(map[string]any)
	var names []string
	for _, c := range criterion["properties"].(map[string]any)["check"].(map[string]any)["enum"].([]any) {
		names = append(names, c.(string))
	}
	assert.Equal(t, check.Names(), names)

	byCheck := map[string][]string{}
	for _, rule := range criterion["allOf"].([]any) {
		r := rule.(map[string]any)
		name := r["if"].(map[string]any)["properties"].(map[string]any)["check"].(map[string]any)["const"].(string)
		byCheck[name] = schematest.Keys(r, "then", "properties", "params", "properties")
	}
	for _, name := range check.Names() {
		k, _ := check.Lookup(name)
		if name == "llm_judge" {
			assert.NotContains(t, byCheck, name)
			continue
		}
		want := slices.Sorted(slices.Values(append(slices.Clone(k.Params), check.EvidenceParam)))
		assert.Equal(t, want, byCheck[name], "params of %s, and the evidence every check takes", name)
	}
}
