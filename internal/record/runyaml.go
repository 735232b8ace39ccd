package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteRun writes run.yaml to path, redacted.
func (r *Redactor) WriteRun(path string, run Run) error {
	data, err := r.MarshalRun(run)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return WriteFile(path, data)
}

// MarshalRun encodes run.yaml as MarshalYAML would, with the why of each plan entry
// redacted. The plan's lists grow with the suite, and yaml.v3's emitter keeps every event
// of a document until the document ends (some 4 KB per entry: 40 MB of garbage to write
// the plan of 5,000 scenarios, several times a run), so the lists are written here, entry
// by entry, and the rest of the file by yaml.v3.
func (r *Redactor) MarshalRun(run Run) ([]byte, error) {
	lists := []struct {
		key     string
		entries []Entry
		ids     []string
	}{{key: "included", entries: run.Included}, {key: "skipped", entries: run.Skipped},
		{key: "unrunnable", entries: run.Unrunnable}, {key: "carried", ids: run.Carried}}
	rest := run
	rest.Included, rest.Skipped, rest.Unrunnable, rest.Carried = []Entry{}, []Entry{}, []Entry{}, []string{}
	data, err := r.MarshalYAML(rest)
	if err != nil {
		return nil, err
	}
	for _, l := range lists {
		if len(l.entries) == 0 && len(l.ids) == 0 {
			continue
		}
		var b bytes.Buffer
		b.WriteString("\n" + l.key + ":\n")
		for _, e := range l.entries {
			b.WriteString("  - scenario_id: " + yamlScalar(e.ScenarioID) + "\n    why: " + yamlScalar(r.String(e.Why)) + "\n")
		}
		for _, id := range l.ids {
			b.WriteString("  - " + yamlScalar(id) + "\n")
		}
		empty := []byte("\n" + l.key + ": []\n")
		if !bytes.Contains(data, empty) {
			return nil, fmt.Errorf("run.yaml has no %s list to fill", l.key)
		}
		data = bytes.Replace(data, empty, b.Bytes(), 1)
	}
	return data, nil
}

// yamlScalar is s as a YAML scalar that reads back as the string s: plain when it is
// letters, digits and a few marks that YAML gives no meaning to, and not a word or number
// YAML would read as another type; otherwise double-quoted, JSON's escapes being YAML's.
func yamlScalar(s string) string {
	if plainSafe(s) {
		return s
	}
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}

func plainSafe(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || s[0] == '-' || s[0] == '.' {
		return false
	}
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(" _-./()", c)
		if !ok {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", ".nan", ".inf":
		return false
	}
	if _, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil {
		return false
	}
	if _, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64); err == nil {
		return false
	}
	return true
}
