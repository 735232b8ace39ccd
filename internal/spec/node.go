package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Pos is where a value is written in its file: line and column, from 1.
type Pos struct{ Line, Column int }

// PosError is a problem in an input file, located at a line and column.
type PosError struct {
	File   string
	Line   int
	Column int
	Msg    string
}

func (e *PosError) Error() string {
	if e.Line == 0 {
		return e.File + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// errs collects every problem found in one file, so that a load reports them all at once.
type errs struct {
	file string
	list []error
}

func (e *errs) at(n *yaml.Node, format string, args ...any) {
	pe := &PosError{File: e.file, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		pe.Line, pe.Column = n.Line, n.Column
	}
	e.list = append(e.list, pe)
}

func (e *errs) err() error { return errors.Join(e.list...) }

// parseDoc parses data as one YAML document whose root is a mapping.
func parseDoc(e *errs, data []byte) *yaml.Node {
	if !utf8.Valid(data) {
		line, col := 1, 1
		for i := 0; i < len(data); {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
			i += size
		}
		e.list = append(e.list, &PosError{File: e.file, Line: line, Column: col, Msg: "invalid YAML: the file is not valid UTF-8 here; save it as UTF-8"})
		return nil
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	err := dec.Decode(&doc)
	if errors.Is(err, io.EOF) {
		err = nil // an empty file: said below
	}
	if err == nil {
		var second yaml.Node
		if derr := dec.Decode(&second); derr == nil {
			e.at(&second, "a second YAML document (after ---) would be ignored: one file holds one document")
			return nil
		} else if !errors.Is(derr, io.EOF) {
			err = derr
		}
	}
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 0
		// yaml.v3 reports "line N: ..."; lift it into the position.
		if rest, ok := strings.CutPrefix(msg, "line "); ok {
			if i := strings.IndexByte(rest, ':'); i > 0 {
				if n, err := strconv.Atoi(rest[:i]); err == nil {
					line, msg = n, strings.TrimSpace(rest[i+1:])
				}
			}
		}
		line, col := offendingLine(data, line)
		e.list = append(e.list, &PosError{File: e.file, Line: line, Column: col, Msg: "invalid YAML: " + msg})
		return nil
	}
	if len(doc.Content) == 0 {
		e.at(nil, "file is empty")
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		e.at(root, "top level must be a mapping of keys, not %s", kindName(root))
		return nil
	}
	return root
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "null"
		}
		return "a scalar"
	case yaml.AliasNode:
		return "an alias"
	}
	return "empty"
}

// field is one key of a mapping with its value.
type field struct {
	key   string
	kNode *yaml.Node
	v     *yaml.Node
}

// fields returns a mapping's keys in file order, reporting duplicate keys and keys for
// which accept returns false. known lists the valid keys, for suggestions.
func fields(e *errs, m *yaml.Node, where string, known []string, strictUnknown bool) []field {
	if m.Kind != yaml.MappingNode {
		e.at(m, "%s must be a mapping, not %s", where, kindName(m))
		return nil
	}
	seen := map[string]bool{}
	var out []field
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		key := k.Value
		if seen[key] {
			e.at(k, "duplicate key %q in %s", key, where)
			continue
		}
		seen[key] = true
		if !contains(known, key) {
			near := nearest(key, known)
			switch {
			case strictUnknown && near != "":
				e.at(k, "unknown key %q in %s; did you mean %q?", key, where, near)
				continue
			case strictUnknown:
				e.at(k, "unknown key %q in %s (valid keys: %s)", key, where, strings.Join(sorted(known), ", "))
				continue
			case near != "":
				// A near miss of a key that matters is a typo, not a new field: refuse it
				// rather than silently ignore a criterion or a selection.
				e.at(k, "unknown key %q in %s; did you mean %q?", key, where, near)
				continue
			}
		}
		out = append(out, field{key: key, kNode: k, v: v})
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sorted(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	return out
}

// Nearest returns the known word closest to word when it is close enough to be a typo
// (case aside), or "".
func Nearest(word string, known []string) string { return nearest(word, known) }

// nearest returns the known key closest to key when it is close enough to be a typo.
func nearest(key string, known []string) string {
	best, bestD, bestSwap := "", math.MaxInt, false
	for _, k := range known {
		a, b := strings.ToLower(key), strings.ToLower(k)
		d := levenshtein(a, b)
		// Of two as near, one that two letters swapped explain (MODLE for MODEL, not MODE).
		swap := d < plainLevenshtein(a, b)
		if d < bestD || d == bestD && swap && !bestSwap {
			best, bestD, bestSwap = k, d, swap
		}
	}
	if len(key) >= 3 {
		for _, k := range known {
			if strings.HasPrefix(strings.ToLower(k), strings.ToLower(key)) {
				return k
			}
		}
	}
	limit := 2
	if len(key) <= 4 {
		limit = 1
	}
	if bestD <= limit || (bestD <= 3 && len(key) >= 10) {
		return best
	}
	return ""
}

// levenshtein is the number of edits from a to b: a letter inserted, dropped or changed,
// or two adjacent letters swapped (the optimal string alignment distance).
func levenshtein(a, b string) int { return distance(a, b, true) }

// plainLevenshtein is levenshtein with a swap counted as two edits.
func plainLevenshtein(a, b string) int { return distance(a, b, false) }

func distance(a, b string, swaps bool) int {
	ra, rb := []rune(a), []rune(b)
	before := make([]int, len(rb)+1) // the row before prev, for a swap
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if swaps && i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], before[j-2]+1)
			}
		}
		before, prev, cur = prev, cur, before
	}
	return prev[len(rb)]
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func str(e *errs, f field) string {
	if isNull(f.v) {
		return ""
	}
	if f.v.Kind != yaml.ScalarNode {
		e.at(f.v, "%s must be a string, not %s", f.key, kindName(f.v))
		return ""
	}
	return f.v.Value
}

func boolean(e *errs, f field) bool {
	if isNull(f.v) {
		return false
	}
	var b bool
	if f.v.Kind != yaml.ScalarNode || f.v.Tag != "!!bool" || f.v.Decode(&b) != nil {
		e.at(f.v, "%s must be true or false, not %q", f.key, f.v.Value)
		return false
	}
	return b
}

// number reads a non-negative number. ok is false when the value is null or invalid.
func number(e *errs, f field) (v float64, ok bool) {
	if isNull(f.v) {
		return 0, false
	}
	if f.v.Kind != yaml.ScalarNode || (f.v.Tag != "!!int" && f.v.Tag != "!!float") || f.v.Decode(&v) != nil {
		e.at(f.v, "%s must be a number, not %q", f.key, f.v.Value)
		return 0, false
	}
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		e.at(f.v, "%s must not be negative, got %s", f.key, f.v.Value)
		return 0, false
	}
	return v, true
}

// integer reads a non-negative integer. ok is false when the value is null or invalid.
func integer(e *errs, f field) (int, bool) {
	v, ok := number(e, f)
	if !ok {
		return 0, false
	}
	if v != math.Trunc(v) || v > math.MaxInt32 {
		e.at(f.v, "%s must be a whole number, got %s", f.key, f.v.Value)
		return 0, false
	}
	return int(v), true
}

func strList(e *errs, f field) []string {
	if isNull(f.v) {
		return nil
	}
	if f.v.Kind != yaml.SequenceNode {
		e.at(f.v, "%s must be a list of strings, not %s", f.key, kindName(f.v))
		return nil
	}
	out := make([]string, 0, len(f.v.Content))
	for _, item := range f.v.Content {
		if item.Kind != yaml.ScalarNode || isNull(item) {
			e.at(item, "%s entries must be strings, not %s", f.key, kindName(item))
			continue
		}
		out = append(out, item.Value)
	}
	return out
}

// value decodes any YAML value into plain Go values (maps, slices, strings, numbers).
func value(e *errs, f field) any {
	v, err := nodeValue(f.v)
	if err != nil {
		e.at(f.v, "%s: %v", f.key, err)
		return nil
	}
	return v
}

// jsonNumber is a number as JSON writes it.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// nodeValue decodes n as a JSON-compatible value whose numbers keep the digits the file
// wrote (a json.Number): 1234567890123456789 is not rounded to the nearest float64.
func nodeValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if t := n.ShortTag(); (t == "!!int" || t == "!!float") && jsonNumber.MatchString(n.Value) {
			return json.Number(n.Value), nil
		}
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].ShortTag() == "!!merge" {
				return decoded(n)
			}
			v, err := nodeValue(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		list := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := nodeValue(c)
			if err != nil {
				return nil, err
			}
			list[i] = v
		}
		return list, nil
	}
	return decoded(n)
}

func decoded(n *yaml.Node) (any, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	return normalize(v), nil
}

// normalize turns yaml.v3's map[string]interface{} trees into JSON-compatible values.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, vv := range x {
			x[k] = normalize(vv)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, vv := range x {
			m[fmt.Sprint(k)] = normalize(vv)
		}
		return m
	case []any:
		for i := range x {
			x[i] = normalize(x[i])
		}
		return x
	}
	return v
}

// offendingLine finds the line a YAML error is on, and its first column. yaml.v3 names the
// line where the enclosing collection starts (an outdented "params:" on line 11 is "line
// 4: did not find expected '-' indicator"), so the file is parsed a line at a time from
// there: the first prefix that no longer parses ends at the offending line.
func offendingLine(data []byte, reported int) (line, col int) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if reported < 1 {
		reported = 1
	}
	for n := reported; n <= len(lines) && n-reported < 2000; n++ {
		var doc yaml.Node
		if err := yaml.Unmarshal(bytes.Join(lines[:n], nil), &doc); err != nil {
			text := lines[n-1]
			return n, len(text) - len(bytes.TrimLeft(text, " \t")) + 1
		}
	}
	return reported, 1
}
