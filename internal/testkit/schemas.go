package testkit

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

// CompileSchema compiles the schema data, published as name under schemas.Base.
func CompileSchema(t testing.TB, name string, data []byte) *jsonschema.Schema {
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

// SchemaKeys are the keys of the object at path in a decoded schema, sorted.
func SchemaKeys(v any, path ...string) []string {
	for _, p := range path {
		v = v.(map[string]any)[p]
	}
	return slices.Sorted(maps.Keys(v.(map[string]any)))
}
