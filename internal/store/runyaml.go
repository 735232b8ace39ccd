package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
	"gopkg.in/yaml.v3"
)

// WriteRun writes run.yaml to path, redacted.
func (r *Redactor) WriteRun(path string, run record.Run) error {
	head, err := r.runHead(run)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return WriteFileFrom(path, func(w io.Writer) error { return r.writeRun(w, head, run) })
}

// MarshalRun encodes run.yaml as MarshalYAML would, with the why of each plan entry
// redacted. The plan's lists grow with the suite, and yaml.v3's emitter keeps every event
// of a document until the document ends (some 4 KB per entry: 40 MB of garbage to write
// the plan of 5,000 scenarios, several times a run), so the lists are written here, entry
// by entry, and the rest of the file by yaml.v3.
func (r *Redactor) MarshalRun(run record.Run) ([]byte, error) {
	head, err := r.runHead(run)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = r.writeRun(&b, head, run)
	return b.Bytes(), err
}

// runHead is run.yaml without its plan lists, each written as an empty list where the
// list goes.
func (r *Redactor) runHead(run record.Run) ([]byte, error) {
	rest := run
	rest.Included, rest.Skipped, rest.Unrunnable, rest.Carried = []record.Entry{}, []record.Entry{}, []record.Entry{}, []string{}
	return r.MarshalYAML(rest)
}

// writeRun writes run.yaml to w: head, with each plan list written, entry by entry, where
// head has it empty.
func (r *Redactor) writeRun(w io.Writer, head []byte, run record.Run) error {
	lists := []struct {
		key     string
		entries []record.Entry
		ids     []string
	}{{key: "included", entries: run.Included}, {key: "skipped", entries: run.Skipped},
		{key: "unrunnable", entries: run.Unrunnable}, {key: "carried", ids: run.Carried}}
	type at struct {
		pos, list int
	}
	var fill []at
	for i, l := range lists {
		if len(l.entries) == 0 && len(l.ids) == 0 {
			continue
		}
		pos := bytes.Index(head, []byte("\n"+l.key+": []\n"))
		if pos < 0 {
			return fmt.Errorf("run.yaml has no %s list to fill", l.key)
		}
		fill = append(fill, at{pos + 1, i}) // the line "key: []", which the list replaces
	}
	slices.SortFunc(fill, func(a, b at) int { return a.pos - b.pos })
	// bufio keeps the first write error and Flush returns it: the writes' own are not read.
	bw := bufio.NewWriter(w)
	from := 0
	for _, f := range fill {
		l := lists[f.list]
		_, _ = bw.Write(head[from:f.pos])
		_, _ = bw.WriteString(l.key + ":\n")
		for _, e := range l.entries {
			_, _ = bw.WriteString("  - scenario_id: " + yamlScalar(e.ScenarioID) + "\n    why: " + yamlScalar(r.String(e.Why)) + "\n")
		}
		for _, id := range l.ids {
			_, _ = bw.WriteString("  - " + yamlScalar(id) + "\n")
		}
		from = f.pos + len(l.key+": []\n")
	}
	_, _ = bw.Write(head[from:])
	return bw.Flush()
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
func UnmarshalRun(data []byte) (record.Run, error) { return unmarshalRun(data, true) }

// unmarshalRun decodes run.yaml, its plan lists only when lists is true (a run's head:
// its id, agent and pins, is what listing the runs needs).
func unmarshalRun(data []byte, lists bool) (record.Run, error) {
	var run record.Run
	var head bytes.Buffer
	plan := planReader{run: &run, whys: map[string]string{}}
	for line := range strings.Lines(string(data)) {
		trimmed := strings.TrimRight(line, "\r\n")
		if plan.key != "" && (strings.HasPrefix(trimmed, "  ") || strings.HasPrefix(trimmed, "- ")) {
			if lists {
				plan.line(trimmed)
			}
			continue
		}
		plan.end()
		if k, rest, ok := strings.Cut(trimmed, ":"); ok && planLists[k] && strings.TrimSpace(rest) == "" {
			plan.key = k
			continue
		}
		head.WriteString(line)
	}
	plan.end()
	if plan.err != nil {
		// Not the shape written here: yaml.v3 reads the whole file.
		var whole record.Run
		err := yaml.Unmarshal(data, &whole)
		return whole, err
	}
	if err := yaml.Unmarshal(head.Bytes(), &run); err != nil {
		return record.Run{}, err
	}
	return run, nil
}

// planReader reads a plan list's block lines into run, one line at a time: "- id" for
// carried, "- scenario_id: id" then "why: ..." for the others.
type planReader struct {
	run   *record.Run
	key   string // the list being read; "" between lists
	first string // an entry's first line, until its second comes
	// whys are the distinct whys read: a plan of thousands says a few.
	whys map[string]string
	err  error
}

func (p *planReader) line(l string) {
	if p.err != nil {
		return
	}
	item := strings.TrimLeft(l, " ")
	if p.key == "carried" {
		id, ok := strings.CutPrefix(item, "- ")
		s, err := scalar(id)
		if !ok || err != nil {
			p.err = fmt.Errorf("carried: unexpected line %q", l)
			return
		}
		p.run.Carried = append(p.run.Carried, strings.Clone(s))
		return
	}
	if p.first == "" {
		first, ok := strings.CutPrefix(item, "- ")
		if !ok || first == "" {
			p.err = fmt.Errorf("%s: unexpected line %q", p.key, l)
		}
		p.first = first
		return
	}
	var e record.Entry
	for _, kv := range []string{p.first, item} {
		k, v, ok := strings.Cut(kv, ": ")
		s, err := scalar(v)
		if !ok || err != nil {
			p.err = fmt.Errorf("%s: unexpected line %q", p.key, kv)
			return
		}
		switch k {
		case "scenario_id":
			e.ScenarioID = strings.Clone(s) // not the whole file's text, held by a substring
		case "why":
			if p.whys[s] == "" {
				p.whys[s] = strings.Clone(s)
			}
			e.Why = p.whys[s]
		default:
			p.err = fmt.Errorf("%s: unexpected key %q", p.key, k)
			return
		}
	}
	p.first = ""
	switch p.key {
	case "included":
		p.run.Included = append(p.run.Included, e)
	case "skipped":
		p.run.Skipped = append(p.run.Skipped, e)
	case "unrunnable":
		p.run.Unrunnable = append(p.run.Unrunnable, e)
	}
}

// end ends the list being read: an entry left without its second line is not the shape
// written here.
func (p *planReader) end() {
	if p.key != "" && p.first != "" && p.err == nil {
		p.err = fmt.Errorf("%s: an entry ends after %q", p.key, p.first)
	}
	p.key, p.first = "", ""
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
