package spec

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/schematest"
	"github.com/rookgo/rookgo/schemas"
)

// The schemas name every key the parser reads, and no other. (Each check's name and params
// are held to the schema by the check package's tests.)
func TestSchemasMatchTheParser(t *testing.T) {
	var profile, scenario map[string]any
	require.NoError(t, json.Unmarshal(schemas.Profile, &profile))
	require.NoError(t, json.Unmarshal(schemas.Scenario, &scenario))
	keys := schematest.Keys
	sorted := func(s []string) []string { return slices.Sorted(slices.Values(s)) }
	assert.Equal(t, sorted(profileKeys), keys(profile, "properties"))
	assert.Equal(t, sorted(append(slices.Clone(phaseKeys), "go", "traces")), keys(profile, "properties", "hooks", "properties"))
	hookObject := profile["$defs"].(map[string]any)["hook"].(map[string]any)["oneOf"].([]any)[1]
	assert.Equal(t, sorted(hookKeys), keys(hookObject, "properties"))
	assert.Equal(t, sorted(envKeys), keys(profile, "properties", "env", "items", "properties"))
	assert.Equal(t, sorted(capKeys), keys(profile, "properties", "capabilities", "properties"))
	assert.Equal(t, sorted(scenarioKeys), keys(scenario, "properties"))
	assert.Equal(t, sorted(criterionKeys), keys(scenario, "$defs", "criterion", "properties"))
	assert.Equal(t, sorted(callKeys), keys(scenario, "$defs", "call", "properties"))
}

// Rook's own sample files and this project's pass the schemas; a misspelt key does not.
func TestSchemasAcceptRookFiles(t *testing.T) {
	profile := schematest.Compile(t, "profile.schema.json", schemas.Profile)
	scenario := schematest.Compile(t, "scenario.schema.json", schemas.Scenario)
	var profiles, scenarios []string
	for _, root := range []string{"testdata/rook-samples", "../../profiles", "../../scenarios", "../../rookgen/testdata"} {
		require.NoError(t, filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || !strings.HasSuffix(path, ".yaml") {
				return err
			}
			switch dir := filepath.Base(filepath.Dir(path)); {
			case dir == "profiles" || strings.HasPrefix(path, "../../profiles/"):
				profiles = append(profiles, path)
			case dir == "scenarios" || dir == "generated-drafts" || strings.HasPrefix(path, "../../scenarios/"):
				scenarios = append(scenarios, path)
			case strings.HasPrefix(path, "../../rookgen/testdata/") && strings.Contains(path, "/profiles/"):
				profiles = append(profiles, path)
			}
			return nil
		}))
	}
	require.GreaterOrEqual(t, len(profiles), 3)
	require.GreaterOrEqual(t, len(scenarios), 25)
	for _, group := range []struct {
		schema *jsonschema.Schema
		files  []string
	}{{profile, profiles}, {scenario, scenarios}} {
		for _, f := range group.files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			assert.NoError(t, schematest.ValidateYAML(t, group.schema, data), f)
		}
	}

	sc, err := os.ReadFile(scenarios[0])
	require.NoError(t, err)
	require.Contains(t, string(sc), "acceptance_criteria:")
	err = schematest.ValidateYAML(t, scenario, bytes.Replace(sc, []byte("acceptance_criteria:"), []byte("acceptence_criteria:"), 1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "acceptence_criteria")

	pr, err := os.ReadFile(profiles[0])
	require.NoError(t, err)
	err = schematest.ValidateYAML(t, profile, append(pr, "concurency: 2\n"...))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "concurency")
	err = schematest.ValidateYAML(t, scenario, []byte("id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contians}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at '/acceptance_criteria/0/check': value must be one of")
}
