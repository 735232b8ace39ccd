// Package store reads and writes a run's records (their schema is package record): Store
// and the Read functions read a run back (the engine, a continuation, reports), checking
// a verdict against the records it claims; WriteFile writes every file atomically,
// readable by others (0644); a Redactor replaces every declared secret with
// [redacted:NAME], in decoded values and in shown text; Lock, CopyTree, ListRuns and the
// run.yaml codec are the rest of what a records root needs.
package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// WriteFile writes data to path atomically: a temporary file in the same directory is
// written, synced and renamed over path, so a reader (or a crash) sees the old file or the
// new one, never a part.
func WriteFile(path string, data []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writers are WriteFileFrom's buffers, reused: a run writes records by the thousand.
var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 32<<10) }}

// WriteFileFrom writes what write writes to path, atomically as WriteFile does, through a
// buffer: a large record (report.html) is streamed to disk rather than held whole.
func WriteFileFrom(path string, write func(io.Writer) error) error {
	return writeAtomic(path, func(w io.Writer) error {
		bw := writers.Get().(*bufio.Writer)
		bw.Reset(w)
		defer func() {
			bw.Reset(nil)
			writers.Put(bw)
		}()
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

func writeAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// An attempt's record is sealed in its manifest (seal.go): its digest is taken as it
	// is written, not by reading it back.
	_, _, sealed := sealedDir(path)
	sum := sha256.New()
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	// Records are read by others (a CI artifact upload running as another user): 0644,
	// not CreateTemp's 0600.
	werr := f.Chmod(0o644)
	if werr == nil {
		var w io.Writer = f
		if sealed {
			w = io.MultiWriter(f, sum)
		}
		werr = write(w)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil && sealed {
		werr = sealWritten(path, hex.EncodeToString(sum.Sum(nil))) // before the rename (seal.go)
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		_ = os.Remove(tmp) // the write already failed; that error is the one to report
		return fmt.Errorf("write %s: %w", path, werr)
	}
	// One sync per record, of the file before its rename: a crash of the process or of
	// the machine leaves the old file or the new one, whole. The directory is not synced:
	// that would make the rename itself durable, which crash safety does not need (a
	// continued run finds the old record and runs its phase again), at a second sync
	// per record.
	return nil
}

// Redactor replaces the values of declared environment variables with [redacted:NAME].
type Redactor struct {
	raw  *strings.Replacer
	none bool
	// forms are the texts replaced, longest first; maxLen is the longest's length.
	forms  []string
	maxLen int
}

// MinRedacted is the shortest value a Redactor replaces. A shorter one would erase
// unrelated text everywhere (a one-letter value takes every such letter with it), so it is
// left alone; callers warn about it.
const MinRedacted = 4

// MinSecret is the shortest value a declared secret may have (WeakSecret).
const MinSecret = 8

// WeakSecret says why value cannot be a declared secret's, or "" when it can: under
// MinSecret bytes, a plain word (letters alone, up to 12 of them: a dictionary word or a
// name), or a number (digits alone). Redacting such a value rewrites the agent's own text
// wherever the word or number appears ("missing or wrong bearer token" reads as if the
// token were echoed), and not redacting it leaves it in the records. "" (unset) is not
// this check's to refuse.
func WeakSecret(value string) string {
	letters, digits := true, true
	for _, c := range value {
		letters = letters && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
		digits = digits && c >= '0' && c <= '9'
	}
	switch {
	case value == "":
		return ""
	case len(value) < MinSecret:
		return fmt.Sprintf("only %d character(s)", len(value))
	case digits:
		return "a number"
	case letters && len(value) <= 12:
		return "a plain word"
	}
	return ""
}

// WeakSecrets is the error naming each of secrets (variable to value) whose value is weak
// (WeakSecret), in the order of their names; nil when none is.
func WeakSecrets(secrets map[string]string) error {
	var bad []string
	for _, name := range slices.Sorted(maps.Keys(secrets)) {
		if why := WeakSecret(secrets[name]); why != "" {
			bad = append(bad, name+" is "+why)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("declared secret %s: redacting such a value would rewrite the agent's own text wherever it appears, as if the agent had echoed it, and not redacting it would keep it in the records; set the real credential (%d characters or more, not a plain word or a number), or declare the variable a setting (secret: false) if the agent really takes such a value",
		strings.Join(bad, ", "), MinSecret)
}

// NewRedactor redacts the values of vars (name to value) of MinRedacted bytes or more.
func NewRedactor(vars map[string]string) *Redactor {
	type pair struct{ name, value string }
	var pairs []pair
	for n, v := range vars {
		if len(v) < MinRedacted {
			continue
		}
		// The value as it stands, and as JSON and Go quoting print it: a secret holding
		// quotes, backslashes or newlines (a PEM key, a JSON key file) is escaped in a
		// hook's stdout and in quoted error text.
		seen := map[string]bool{}
		for _, form := range []string{v, jsonEscaped(v), strings.Trim(strconv.Quote(v), `"`)} {
			if !seen[form] {
				seen[form] = true
				pairs = append(pairs, pair{n, form})
			}
		}
	}
	// Longest first, so a value that contains another is replaced whole.
	sort.Slice(pairs, func(i, j int) bool {
		if len(pairs[i].value) != len(pairs[j].value) {
			return len(pairs[i].value) > len(pairs[j].value)
		}
		return pairs[i].name < pairs[j].name
	})
	var raw []string
	for _, p := range pairs {
		raw = append(raw, p.value, "[redacted:"+p.name+"]")
	}
	r := &Redactor{raw: strings.NewReplacer(raw...), none: len(pairs) == 0}
	for _, p := range pairs {
		r.forms = append(r.forms, p.value)
		r.maxLen = max(r.maxLen, len(p.value))
	}
	return r
}

// jsonEscaped is v as it stands inside a JSON string.
func jsonEscaped(v string) string {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	return string(b[1 : len(b)-1])
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
	data := buf.Bytes()
	if r != nil && !r.none {
		var err error
		if data, err = r.redactJSON(data); err != nil {
			return fmt.Errorf("redact %s: %w", filepath.Base(path), err)
		}
	}
	return WriteFile(path, data)
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
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// structural are the record fields rooktest itself writes (ids, times, statuses, hashes):
// never free text, so never redacted. A secret that happens to equal one of their values
// (2026, Pass, true) must not rewrite a run id, a timestamp or a verdict. What hooks print
// is redacted as it comes in, before it reaches any record.
var structural = map[string]bool{
	"id": true, "run_id": true, "scenario_id": true, "agent_id": true, "profile_id": true, "profile_revision": true,
	"created": true, "finished": true, "generated": true, "at": true, "ended_at": true, "version": true,
	"status": true, "unverifiable_reason": true, "confidence": true, "criterion_id": true, "check": true,
	"phases_run": true, "resume_from": true, "carried": true, "carried_from": true, "sha256": true,
	"prompt_sha256": true, "hooks_sha256": true, "attempt": true, "phase": true, "role": true, "kind": true,
}

// node redacts the scalar values under n; mapping keys are the records' own structure and
// are left alone, and so are the structural fields' values.
func (r *Redactor) node(n *yaml.Node) {
	switch n.Kind {
	case yaml.ScalarNode:
		if red := r.raw.Replace(n.Value); red != n.Value {
			n.Value, n.Tag, n.Style = red, "!!str", 0
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			if structural[n.Content[i-1].Value] {
				continue
			}
			r.node(n.Content[i])
		}
	default:
		for _, c := range n.Content {
			r.node(c)
		}
	}
}

// redactJSON re-encodes a JSON document with every string value redacted; object keys,
// numbers and the order of everything stay as they were.
func (r *Redactor) redactJSON(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := &jsonRedaction{r: r}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		w.token(tok)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, w.out.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	indented.WriteByte('\n')
	return indented.Bytes(), nil
}

// jsonRedaction writes a JSON document again token by token, its strings redacted.
type jsonRedaction struct {
	r     *Redactor
	out   bytes.Buffer
	stack []jsonFrame
	// skip is the depth of a structural field's value being copied as it is.
	skip    int
	lastKey string
}

type jsonFrame struct {
	object bool
	n      int // items written; in an object, keys and values both count
}

func (w *jsonRedaction) token(tok json.Token) {
	closing := tok == json.Delim('}') || tok == json.Delim(']')
	isKey := false
	if len(w.stack) > 0 && !closing {
		f := &w.stack[len(w.stack)-1]
		isKey = f.object && f.n%2 == 0
		switch {
		case f.object && !isKey:
			w.out.WriteByte(':')
		case f.n > 0:
			w.out.WriteByte(',')
		}
		f.n++
	}
	switch v := tok.(type) {
	case json.Delim:
		w.delim(v)
	case string:
		switch {
		case isKey:
			w.str(v)
			w.lastKey = v
			return
		case w.skip > 0 || structural[w.lastKey]:
			w.str(v)
		default:
			w.str(w.r.raw.Replace(v))
		}
		w.lastKey = ""
	case json.Number:
		w.out.WriteString(v.String())
	case bool:
		w.out.WriteString(strconv.FormatBool(v))
	case nil:
		w.out.WriteString("null")
	}
}

func (w *jsonRedaction) delim(v json.Delim) {
	w.out.WriteRune(rune(v))
	switch v {
	case '{', '[':
		if w.skip > 0 || structural[w.lastKey] && w.lastKey != "" {
			w.skip++
		}
		w.stack = append(w.stack, jsonFrame{object: v == '{'})
	default:
		w.stack = w.stack[:len(w.stack)-1]
		if w.skip > 0 {
			w.skip--
		}
	}
	w.lastKey = ""
}

func (w *jsonRedaction) str(s string) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	w.out.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// Bytes writes data, redacted, to path.
func (r *Redactor) Bytes(path string, data []byte) error {
	if r != nil && !r.none {
		data = []byte(r.raw.Replace(string(data)))
	}
	return WriteFile(path, data)
}
