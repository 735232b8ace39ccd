package spec

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// JSONPath is a parsed path of the form $.a.b[0]["c d"].
type JSONPath []pathStep

type pathStep struct {
	key   string
	index int
	isIdx bool
}

// ParseJSONPath parses a path that starts at $ and steps through keys and list indexes.
func ParseJSONPath(s string) (JSONPath, error) {
	if !strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("json path %q must start with $", s)
	}
	var p JSONPath
	rest := s[1:]
	for rest != "" {
		switch rest[0] {
		case '.':
			rest = rest[1:]
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if end == 0 {
				return nil, fmt.Errorf("json path %q has an empty key", s)
			}
			p = append(p, pathStep{key: rest[:end]})
			rest = rest[end:]
		case '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("json path %q has an unclosed [", s)
			}
			inner := rest[1:end]
			rest = rest[end+1:]
			if q, err := strconv.Unquote(inner); err == nil && len(inner) > 1 && (inner[0] == '"' || inner[0] == '\'') {
				p = append(p, pathStep{key: q})
				continue
			}
			if len(inner) > 1 && inner[0] == '\'' && inner[len(inner)-1] == '\'' {
				p = append(p, pathStep{key: inner[1 : len(inner)-1]})
				continue
			}
			n, err := strconv.Atoi(inner)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("json path %q: [%s] is not an index or a quoted key", s, inner)
			}
			p = append(p, pathStep{index: n, isIdx: true})
		default:
			return nil, fmt.Errorf("json path %q: unexpected %q after %q", s, rest[0], s[:len(s)-len(rest)])
		}
	}
	return p, nil
}

// Lookup walks v (decoded JSON) along the path. ok is false when a step is missing.
func (p JSONPath) Lookup(v any) (any, bool) {
	for _, st := range p {
		// Hooks often carry JSON inside a string (Rook's collect "output"); look inside it.
		if str, ok := v.(string); ok {
			var inner any
			if t := strings.TrimSpace(str); t != "" && (t[0] == '{' || t[0] == '[') && json.Unmarshal([]byte(t), &inner) == nil {
				v = inner
			}
		}
		switch x := v.(type) {
		case map[string]any:
			if st.isIdx {
				return nil, false
			}
			var ok bool
			if v, ok = x[st.key]; !ok {
				return nil, false
			}
		case []any:
			if !st.isIdx || st.index >= len(x) {
				return nil, false
			}
			v = x[st.index]
		default:
			return nil, false
		}
	}
	return v, true
}
