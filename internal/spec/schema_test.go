package spec

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/schemas"
)

func compileSchema(t *testing.T, name string, data []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(schemas.Base+name, doc))
	s, err := c.Compile(schemas.Base + name)
	require.NoError(t, err)
	return s
}

// validateYAML validates a YAML document against s, as an editor's YAML language server does.
func validateYAML(t *testing.T, s *jsonschema.Schema, data []byte) error {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal(data, &v))
	j, err := json.Marshal(v)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	require.NoError(t, err)
	return s.Validate(inst)
}

// The schemas name every key the parser reads, and every check it knows, and no other.
func TestSchemasMatchTheParser(t *testing.T) {
	var profile, scenario map[string]any
	require.NoError(t, json.Unmarshal(schemas.Profile, &profile))
	require.NoError(t, json.Unmarshal(schemas.Scenario, &scenario))
	keys := func(v any, path ...string) []string {
		for _, p := range path {
			v = v.(map[string]any)[p]
		}
		return slices.Sorted(maps.Keys(v.(map[string]any)))
	}
	sorted := func(s []string) []string { return slices.Sorted(slices.Values(s)) }
	assert.Equal(t, sorted(profileKeys), keys(profile, "properties"))
	assert.Equal(t, sorted(phaseKeys), keys(profile, "properties", "hooks", "properties"))
	hookObject := profile["$defs"].(map[string]any)["hook"].(map[string]any)["oneOf"].([]any)[1]
	assert.Equal(t, sorted(hookKeys), keys(hookObject, "properties"))
	assert.Equal(t, sorted(envKeys), keys(profile, "properties", "env", "items", "properties"))
	assert.Equal(t, sorted(capKeys), keys(profile, "properties", "capabilities", "properties"))
	assert.Equal(t, sorted(scenarioKeys), keys(scenario, "properties"))
	assert.Equal(t, sorted(criterionKeys), keys(scenario, "$defs", "criterion", "properties"))
	assert.Equal(t, sorted(callKeys), keys(scenario, "$defs", "call", "properties"))
	var checks []string
	for _, c := range scenario["$defs"].(map[string]any)["criterion"].(map[string]any)["properties"].(map[string]any)["check"].(map[string]any)["enum"].([]any) {
		checks = append(checks, c.(string))
	}
	assert.Equal(t, check.Names(), checks)

	// Each check's params are the ones it reads (llm_judge reads none, and takes Rook's).
	byCheck := map[string][]string{}
	for _, rule := range scenario["$defs"].(map[string]any)["criterion"].(map[string]any)["allOf"].([]any) {
		r := rule.(map[string]any)
		name := r["if"].(map[string]any)["properties"].(map[string]any)["check"].(map[string]any)["const"].(string)
		byCheck[name] = keys(r, "then", "properties", "params", "properties")
	}
	for _, name := range check.Names() {
		k, _ := check.Lookup(name)
		if name == "llm_judge" {
			assert.NotContains(t, byCheck, name)
			continue
		}
		assert.Equal(t, sorted(append(slices.Clone(k.Params), evidenceParam)), byCheck[name], "params of %s, and the evidence every check takes", name)
	}
}

// The schemas refuse what the parser refuses: a misspelt param, a param of the wrong type
// or outside its values, a command given as a string.
func TestSchemasRefuseWhatTheParserRefuses(t *testing.T) {
	scenario := compileSchema(t, "scenario.schema.json", schemas.Scenario)
	profile := compileSchema(t, "profile.schema.json", schemas.Profile)
	criterion := func(c string) []byte {
		return []byte("id: SC-1\ngoal: g\nacceptance_criteria:\n  - " + c + "\n")
	}
	for _, bad := range []string{
		"{statement: s, check: contains, params: {txt: hello}}",
		"{statement: s, check: latency, params: {max_ms: fast}}",
		"{statement: s, check: call_sequence, params: {names: [a, b], mode: strictly}}",
		"{statement: s, check: usage, params: {input: 10}}",
		"{statement: s, check: regex, params: {pattern: a, in: collect}}",
	} {
		assert.Error(t, validateYAML(t, scenario, criterion(bad)), bad)
		_, err := ParseScenario("SC-1.yaml", criterion(bad))
		assert.Error(t, err, "the parser refuses it too: %s", bad)
	}
	for _, good := range []string{
		"{statement: s, check: contains, params: {text: hello, case_sensitive: true}}",
		"{statement: s, check: latency, params: {max_ms: 5000, per: scenario}}",
		"{statement: s, check: call_sequence, params: {names: [a, b], mode: subset}}",
		"{statement: s, check: usage, params: {total_max: 400}}",
		"{statement: s, check: json_path, params: {in: collect, path: $.x, exists: true}}",
		"{statement: s, check: llm_judge}",
	} {
		assert.NoError(t, validateYAML(t, scenario, criterion(good)), good)
	}
	bad := []byte("id: p\nhooks:\n  execute: {command: \"my-agent --flag\"}\n")
	assert.Error(t, validateYAML(t, profile, bad))
	_, err := ParseProfile("p.yaml", t.TempDir(), bad)
	assert.Error(t, err)
}

// Rook's own sample files and this project's pass the schemas; a misspelt key does not.
func TestSchemasAcceptRookFiles(t *testing.T) {
	profile := compileSchema(t, "profile.schema.json", schemas.Profile)
	scenario := compileSchema(t, "scenario.schema.json", schemas.Scenario)
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
			assert.NoError(t, validateYAML(t, group.schema, data), f)
		}
	}

	sc, err := os.ReadFile(scenarios[0])
	require.NoError(t, err)
	require.Contains(t, string(sc), "acceptance_criteria:")
	err = validateYAML(t, scenario, bytes.Replace(sc, []byte("acceptance_criteria:"), []byte("acceptence_criteria:"), 1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "acceptence_criteria")

	pr, err := os.ReadFile(profiles[0])
	require.NoError(t, err)
	err = validateYAML(t, profile, append(pr, "concurency: 2\n"...))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "concurency")
	err = validateYAML(t, scenario, []byte("id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contians}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at '/acceptance_criteria/0/check': value must be one of")
}
