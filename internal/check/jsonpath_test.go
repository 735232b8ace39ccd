package check_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/check"
)

func TestJSONPath(t *testing.T) {
	doc := map[string]any{"a": map[string]any{"b": []any{"x", map[string]any{"c d": 5.0}}}, "s": `{"inner": [1, 2]}`}
	for path, want := range map[string]any{"$.a.b[0]": "x", `$.a.b[1]["c d"]`: 5.0, "$.s.inner[1]": json.Number("2")} {
		p, err := check.ParseJSONPath(path)
		require.NoError(t, err, path)
		got, ok := p.Lookup(doc)
		assert.True(t, ok, path)
		assert.Equal(t, want, got, path)
	}
	p, _ := check.ParseJSONPath("$.a.missing")
	_, ok := p.Lookup(doc)
	assert.False(t, ok)
	for _, bad := range []string{"a.b", "$..a", "$[x]", "$.a["} {
		_, err := check.ParseJSONPath(bad)
		assert.Error(t, err, bad)
	}
}
