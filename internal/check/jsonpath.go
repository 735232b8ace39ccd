package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
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
			if t := strings.TrimSpace(str); t != "" && (t[0] == '{' || t[0] == '[') {
				if inner, err := decodeJSON(t); err == nil {
					v = inner
				}
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

func init() {
	register(&Kind{Name: "json_path", Turn: true, Params: []string{"path", "equals", "matches", "exists", "in"}, Parse: func(p Params) Check {
		c := &JSONPathCheck{In: "output"}
		if p.Has("in") {
			if c.In = p.String("in"); c.In != "output" && c.In != "collect" {
				p.Errorf("in", "must be one of output, collect, not %q", c.In)
			}
		}
		if p.Require("path") {
			c.Source = p.String("path")
			var err error
			if c.Path, err = ParseJSONPath(c.Source); err != nil {
				p.Errorf("path", "%v", err)
			}
		}
		c.parseExpectation(p, "json_path")
		return c
	}})
}

// parseExpectation reads the one of equals, matches and exists a path check needs.
func (c *JSONPathCheck) parseExpectation(p Params, name string) {
	n := 0
	if p.Has("equals") {
		c.Equals, c.HasEquals = p.Value("equals"), true
		n++
	}
	if p.Has("matches") {
		c.Matches = compile(p, "matches")
		n++
	}
	if p.Has("exists") {
		b := p.Bool("exists")
		c.Exists = &b
		n++
	}
	if n != 1 {
		p.Errorf("", "check %s needs exactly one of params.equals, params.matches, params.exists", name)
	}
}

// expectation says what passes of the value at the path in src.
func (c *JSONPathCheck) expectation(src string) string {
	switch {
	case c.HasEquals:
		return fmt.Sprintf("%s at %s equals %s", src, c.Source, jsonText(c.Equals))
	case c.Matches != nil:
		return fmt.Sprintf("%s at %s matches /%s/", src, c.Source, c.Matches)
	case c.Exists != nil && !*c.Exists:
		return fmt.Sprintf("%s has nothing at %s", src, c.Source)
	}
	return fmt.Sprintf("%s has a value at %s", src, c.Source)
}

// decideAt decides the expectation on doc: the status, whether the path found a value,
// and the value.
func (c *JSONPathCheck) decideAt(doc any) (status record.Status, found bool, v any) {
	v, found = c.Path.Lookup(doc)
	switch {
	case c.Exists != nil:
		return passIf(found == *c.Exists), found, v
	case !found:
		return record.Fail, false, nil
	case c.HasEquals:
		return passIf(jsonEqual(v, c.Equals)), true, v
	}
	s, isStr := v.(string)
	if !isStr {
		s = jsonText(v)
	}
	return passIf(c.Matches.MatchString(s)), true, v
}

// JSONPathCheck passes when the JSON value at Path, in the reply or in collect's data,
// equals a value, matches a pattern, or exists (or not).
type JSONPathCheck struct {
	Source    string
	Path      JSONPath
	In        string
	Equals    any
	HasEquals bool
	Matches   *regexp.Regexp
	Exists    *bool
}

func (c *JSONPathCheck) Detail() string { return "" }

// Observes the reply, or collect's data (evidence whether or not the agent replied).
func (c *JSONPathCheck) Observes() Observations {
	if c.In == "collect" {
		return ObservesCollect
	}
	return ObservesReply
}

func (c *JSONPathCheck) Expected() string {
	src := "the reply"
	if c.In == "collect" {
		src = "collect's data"
	}
	return c.expectation(src)
}

func (c *JSONPathCheck) Judge(ev *observe.Observations) Result {
	var r Result
	var doc any
	if c.In == "collect" {
		data := ev.Collect()
		if why := data.Gap(); why != "" {
			return unable(record.NotObservable, why)
		}
		doc = data.Value
	} else {
		if why := unreadReply(ev); why != "" {
			return unable(record.NotObservable, why)
		}
		reply := ev.Output().Value
		r.Evidence = Excerpt(reply, 0, 0)
		var err error
		if doc, err = decodeJSON(reply); err != nil {
			r.Status, r.Achieved = record.Fail, "the reply is not JSON"
			return r
		}
	}
	var found bool
	var v any
	r.Status, found, v = c.decideAt(doc)
	if found {
		r.Achieved = fmt.Sprintf("%s is %s", c.Source, Clip(jsonText(v), 200))
		if c.In == "collect" {
			r.Evidence = fmt.Sprintf("collect data %s: %s", c.Source, Clip(jsonText(v), 300))
		}
	} else {
		r.Achieved = fmt.Sprintf("nothing at %s", c.Source)
		if c.In == "collect" {
			r.Evidence = "collect data: " + Clip(jsonText(ev.Collect().Value), 300)
		}
	}
	return r
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// jsonEqual compares two decoded values as JSON values, numbers by their exact value: 5,
// 5.0 and json.Number("5") agree; 1234567890123456789 and 1234567890123456700 do not.
func jsonEqual(a, b any) bool {
	if ra, ok := exactNumber(a); ok {
		rb, ok := exactNumber(b)
		return ok && ra.Cmp(rb) == 0
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case string, bool, nil:
		return a == b
	}
	return jsonText(a) == jsonText(b)
}

// exactNumber is v's exact value when v is a number.
func exactNumber(v any) (*big.Rat, bool) {
	var text string
	switch n := v.(type) {
	case json.Number:
		text = string(n)
	case int:
		text = strconv.Itoa(n)
	case int64:
		text = strconv.FormatInt(n, 10)
	case uint64:
		text = strconv.FormatUint(n, 10)
	case float64:
		text = strconv.FormatFloat(n, 'g', -1, 64)
	default:
		return nil, false
	}
	return new(big.Rat).SetString(text)
}

// DecodeJSON decodes text that holds one JSON value, keeping every number's digits (a
// json.Number), as the checks read JSON.
func DecodeJSON(text string) (any, error) { return decodeJSON(text) }

// decodeJSON decodes text keeping every number's digits (a json.Number).
func decodeJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}
