package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
	"gopkg.in/yaml.v3"
)

// WriteRun writes run.yaml to path, redacted.
func (r *Redactor) WriteRun(path string, run record.Run) error {
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
func (r *Redactor) MarshalRun(run record.Run) ([]byte, error) {
	lists := []struct {
		key     string
		entries []record.Entry
		ids     []string
	}{{key: "included", entries: run.Included}, {key: "skipped", entries: run.Skipped},
		{key: "unrunnable", entries: run.Unrunnable}, {key: "carried", ids: run.Carried}}
	rest := run
	rest.Included, rest.Skipped, rest.Unrunnable, rest.Carried = []record.Entry{}, []record.Entry{}, []record.Entry{}, []string{}
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

// planLists are run.yaml's lists that grow with the suite.
var planLists = map[string]bool{"included": true, "skipped": true, "unrunnable": true, "carried": true}

// UnmarshalRun decodes run.yaml. yaml.v3 holds a whole document's tokens and nodes while it
// decodes it (some 6 MB for a 5,000-entry plan, at once), so the plan lists, as
// MarshalRun or yaml.v3 write them (block style), are read line by line, and the rest of
// the file by yaml.v3; a file in any other shape is decoded by yaml.v3 whole.
func UnmarshalRun(data []byte) (record.Run, error) {
	var run record.Run
	var head bytes.Buffer
	lists := map[string][]string{}
	key := ""
	for _, line := range strings.SplitAfter(string(data), "\n") {
		trimmed := strings.TrimRight(line, "\r\n")
		if key != "" && (strings.HasPrefix(trimmed, "  ") || strings.HasPrefix(trimmed, "- ")) {
			lists[key] = append(lists[key], trimmed)
			continue
		}
		key = ""
		if k, rest, ok := strings.Cut(trimmed, ":"); ok && planLists[k] && strings.TrimSpace(rest) == "" {
			key = k
			lists[k] = []string{}
			continue
		}
		head.WriteString(line)
	}
	if err := yaml.Unmarshal(head.Bytes(), &run); err != nil {
		return record.Run{}, err
	}
	for k, lines := range lists {
		if err := fillList(&run, k, lines); err != nil {
			// Not the shape written here: yaml.v3 reads the whole file.
			var whole record.Run
			err := yaml.Unmarshal(data, &whole)
			return whole, err
		}
	}
	return run, nil
}

// fillList reads a plan list's block lines into run.
func fillList(run *record.Run, key string, lines []string) error {
	if key == "carried" {
		for _, l := range lines {
			item, ok := strings.CutPrefix(strings.TrimLeft(l, " "), "- ")
			if !ok {
				return fmt.Errorf("carried: unexpected line %q", l)
			}
			s, err := scalar(item)
			if err != nil {
				return err
			}
			run.Carried = append(run.Carried, s)
		}
		return nil
	}
	var entries []record.Entry
	for i := 0; i < len(lines); i++ {
		first, ok := strings.CutPrefix(strings.TrimLeft(lines[i], " "), "- ")
		if !ok || i+1 >= len(lines) {
			return fmt.Errorf("%s: unexpected line %q", key, lines[i])
		}
		second := strings.TrimLeft(lines[i+1], " ")
		i++
		var e record.Entry
		for _, kv := range []string{first, second} {
			k, v, ok := strings.Cut(kv, ": ")
			s, err := scalar(v)
			if !ok || err != nil {
				return fmt.Errorf("%s: unexpected line %q", key, kv)
			}
			switch k {
			case "scenario_id":
				e.ScenarioID = s
			case "why":
				e.Why = s
			default:
				return fmt.Errorf("%s: unexpected key %q", key, k)
			}
		}
		entries = append(entries, e)
	}
	switch key {
	case "included":
		run.Included = entries
	case "skipped":
		run.Skipped = entries
	case "unrunnable":
		run.Unrunnable = entries
	}
	return nil
}

// scalar reads a one-line scalar: plain (as plainSafe writes it), or double-quoted with
// JSON's escapes. Anything else is left to yaml.v3.
func scalar(s string) (string, error) {
	if plainSafe(s) {
		return s, nil
	}
	if strings.HasPrefix(s, `"`) {
		var out string
		if err := json.Unmarshal([]byte(s), &out); err == nil {
			return out, nil
		}
	}
	return "", fmt.Errorf("not a plain or JSON-quoted scalar: %q", s)
}
