// Package record writes run records: every file atomically, every declared secret redacted.
package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// WriteFile writes data to path atomically: a temporary file in the same directory is
// written, synced and renamed over path, so a reader (or a crash) sees the old file or the
// new one, never a part.
func WriteFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, werr)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Redactor replaces the values of declared environment variables with [redacted:NAME].
type Redactor struct {
	raw  *strings.Replacer
	json *strings.Replacer
	none bool
}

// NewRedactor redacts the non-empty values of vars (name to value).
func NewRedactor(vars map[string]string) *Redactor {
	type pair struct{ name, value string }
	var pairs []pair
	for n, v := range vars {
		if v != "" {
			pairs = append(pairs, pair{n, v})
		}
	}
	// Longest first, so a value that contains another is replaced whole.
	sort.Slice(pairs, func(i, j int) bool {
		if len(pairs[i].value) != len(pairs[j].value) {
			return len(pairs[i].value) > len(pairs[j].value)
		}
		return pairs[i].name < pairs[j].name
	})
	var raw, js []string
	for _, p := range pairs {
		mark := "[redacted:" + p.name + "]"
		raw = append(raw, p.value, mark)
		// The value as the JSON encoder below writes it inside a string.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(p.value)
		escaped := strings.TrimSuffix(buf.String(), "\n")
		escaped = escaped[1 : len(escaped)-1]
		js = append(js, escaped, mark)
		if escaped != p.value {
			js = append(js, p.value, mark)
		}
	}
	return &Redactor{raw: strings.NewReplacer(raw...), json: strings.NewReplacer(js...), none: len(pairs) == 0}
}

// String redacts s.
func (r *Redactor) String(s string) string {
	if r == nil || r.none {
		return s
	}
	return r.raw.Replace(s)
}

// JSON writes v as indented JSON, redacted, to path.
func (r *Redactor) JSON(path string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	data := buf.String()
	if r != nil && !r.none {
		data = r.json.Replace(data)
	}
	return WriteFile(path, []byte(data))
}

// YAML writes v as YAML, redacted, to path.
func (r *Redactor) YAML(path string, v any) error {
	data, err := r.MarshalYAML(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return WriteFile(path, data)
}

// MarshalYAML encodes v as YAML with every string redacted.
func (r *Redactor) MarshalYAML(v any) ([]byte, error) {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	if r != nil && !r.none {
		r.node(&n)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	enc.Close()
	return buf.Bytes(), nil
}

func (r *Redactor) node(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode {
		if red := r.raw.Replace(n.Value); red != n.Value {
			n.Value, n.Tag, n.Style = red, "!!str", 0
		}
	}
	for _, c := range n.Content {
		r.node(c)
	}
}

// Bytes writes data, redacted, to path.
func (r *Redactor) Bytes(path string, data []byte) error {
	if r != nil && !r.none {
		data = []byte(r.raw.Replace(string(data)))
	}
	return WriteFile(path, data)
}
