// Package schematest compiles the project's JSON Schemas and validates YAML documents
// against them, as an editor's YAML language server does, for the tests that hold the
// schemas and the parsers to each other. It is not part of internal/testkit: the validator
// it links does work at every start of a binary (20 ms and 1.8 MB under -race), and the
// tests that re-execute themselves as hooks start hundreds of times.
package schematest

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/schemas"
)

// Compile compiles the schema data, published as name under schemas.Base.
func Compile(t testing.TB, name string, data []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(schemas.Base+name, doc))
	s, err := c.Compile(schemas.Base + name)
	require.NoError(t, err)
	return s
}

// ValidateYAML validates a YAML document against s.
func ValidateYAML(t testing.TB, s *jsonschema.Schema, data []byte) error {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal(data, &v))
	j, err := json.Marshal(v)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	require.NoError(t, err)
	return s.Validate(inst)
}

// Keys are the keys of the object at path in a decoded schema, sorted.
func Keys(v any, path ...string) []string {
	for _, p := range path {
		v = v.(map[string]any)[p]
	}
	return slices.Sorted(maps.Keys(v.(map[string]any)))
}
