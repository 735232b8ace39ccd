package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/record"
)

// Store is the folder of one run's records: <records root>/<agent>/<run id>/. Its
// readers refuse a record that does not parse, naming the file; a missing one is an
// error that wraps fs.ErrNotExist.
type Store struct {
	Dir string
}

// OpenRun is the store of run id of agent under root. The id must be one folder name
// (no separators, not . or ..), and the run must have a run.yaml.
func OpenRun(root, agent, id string) (Store, error) {
	if !ValidRunID(id) {
		return Store{}, fmt.Errorf("%q is not a run id", id)
	}
	s := Store{Dir: filepath.Join(root, agent, id)}
	if _, err := os.Stat(filepath.Join(s.Dir, "run.yaml")); err != nil {
		return Store{}, err
	}
	return s, nil
}

// ValidRunID reports whether id can name a run folder.
func ValidRunID(id string) bool {
	return id != "" && id != "." && id != ".." && filepath.Base(id) == id
}

// runIDPattern is what a run id given by a person (-rook.run-id) may look like: a name
// that is one folder on every system and never a flag's keyword.
var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// CheckNewRunID says why id cannot name a new run: it must be 1 to 64 letters, digits,
// dots, dashes and underscores, start with a letter or digit, and not be "latest".
func CheckNewRunID(id string) error {
	if !runIDPattern.MatchString(id) || id == "latest" {
		return fmt.Errorf("%q cannot name a run: use 1 to 64 letters, digits, '.', '-' and '_', starting with a letter or digit (not \"latest\")", id)
	}
	return nil
}

// Run reads run.yaml.
func (s Store) Run() (*record.Run, error) {
	path := filepath.Join(s.Dir, "run.yaml")
	data, err := ReadRecord(path)
	if err != nil {
		return &record.Run{}, fmt.Errorf("read %s: %w", path, err)
	}
	r, err := UnmarshalRun(data)
	if err != nil {
		return &r, fmt.Errorf("%s is corrupt: %w", path, err)
	}
	return &r, nil
}

// Profile reads profile.yaml.
func (s Store) Profile() (*record.Profile, error) {
	var p record.Profile
	return &p, ReadYAML(filepath.Join(s.Dir, "profile.yaml"), &p)
}

// Report reads report.yaml.
func (s Store) Report() (*record.Report, error) {
	var r record.Report
	return &r, ReadYAML(filepath.Join(s.Dir, "report.yaml"), &r)
}

// ScenarioDir is the folder of a scenario's records.
func (s Store) ScenarioDir(id string) string { return filepath.Join(s.Dir, "scenarios", id) }

// ErrUntrusted is the error of a verdict that does not match the records it claims.
var ErrUntrusted = errors.New("untrusted verdict")

// ReadVerdict reads the verdict.yaml in dir (a scenario's folder, or one of its attempts')
// and checks it against the records it claims: its hooks_sha256 must be HooksDigest of
// dir. A verdict that does not match (one a hook wrote itself, or one judged from records
// that changed since) is returned with an error wrapping ErrUntrusted: never count it.
func ReadVerdict(dir string) (*record.Verdict, error) {
	var v record.Verdict
	path := filepath.Join(dir, "verdict.yaml")
	if err := ReadYAML(path, &v); err != nil {
		return &v, err
	}
	if want := HooksDigest(dir, &v); v.HooksSHA256 == "" || v.HooksSHA256 != want {
		return &v, fmt.Errorf("%s: %w: its hooks_sha256 does not match the hooks.json it was judged from, so nothing in it is counted", path, ErrUntrusted)
	}
	dirs := []string{dir}
	for _, a := range v.Attempts {
		dirs = append(dirs, filepath.Join(dir, "attempts", strconv.Itoa(a.Attempt)))
	}
	for _, d := range dirs {
		if err := VerifySealed(d, v.Sealed); err != nil {
			return &v, fmt.Errorf("%s: %w: %w, so nothing in it is counted", path, ErrUntrusted, err)
		}
	}
	return &v, nil
}

// HooksDigest is what a verdict in dir holds as hooks_sha256: the SHA-256 of dir's
// hooks.json, or, for a repeated scenario's verdict (v lists attempts), the SHA-256 of its
// attempts' digests in order. "" when a hooks.json it covers cannot be read.
func HooksDigest(dir string, v *record.Verdict) string {
	if len(v.Attempts) == 0 {
		return fileDigest(filepath.Join(dir, "hooks.json"))
	}
	h := sha256.New()
	for _, a := range v.Attempts {
		sum := fileDigest(filepath.Join(dir, "attempts", strconv.Itoa(a.Attempt), "hooks.json"))
		if sum == "" {
			return ""
		}
		h.Write([]byte(sum + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// WriteVerdict writes v as dir's verdict.yaml, bound to the records it was judged from:
// its hooks_sha256 is set to HooksDigest(dir, v), which every ReadVerdict checks.
func (r *Redactor) WriteVerdict(dir string, v *record.Verdict) error {
	path := filepath.Join(dir, "verdict.yaml")
	_, _, sealed := sealedDir(path) // a run's attempt: its records are in a manifest
	v.HooksSHA256, v.Sealed = HooksDigest(dir, v), sealed
	return r.YAML(path, v)
}

// fileDigest is the hex SHA-256 of a record, or "" when it cannot be read.
func fileDigest(path string) string {
	sum, _ := RecordDigest(path)
	return sum
}

// RecordDigest is the hex SHA-256 of the record at path, read as it streams and never
// through a link (ReadRecord).
func RecordDigest(path string) (string, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file (a link is not followed to read a record)", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only
	h := sha256.New()
	if _, err := hook.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ReadHooks reads the hooks.json in dir, with the numbers hooks printed kept exact; a
// folder without one has no phase recorded yet.
func ReadHooks(dir string) (*record.Hooks, error) {
	path := filepath.Join(dir, "hooks.json")
	data, err := ReadRecord(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &record.Hooks{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var h record.Hooks
	if err := DecodeJSON(data, &h); err != nil {
		return nil, fmt.Errorf("%s is corrupt: %w", path, err)
	}
	p := h.Phases
	for _, rec := range []*record.PhaseRecord{p.Open, p.Execute, p.Close, p.Collect} {
		if rec == nil {
			continue
		}
		hook.Numbers(rec.Data)
		for _, t := range rec.Turns {
			hook.Numbers(t.Data)
		}
	}
	return &h, nil
}

// ReadRecord reads a record file: a regular file, never one through a link (a shard's
// profile.yaml linked to a kubeconfig would bring its token into the merged records).
func ReadRecord(path string) ([]byte, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (a link is not followed to read a record)", path)
	}
	return os.ReadFile(path)
}

// ReadYAML reads a YAML record into v.
func ReadYAML(path string, v any) error {
	data, err := ReadRecord(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s is corrupt: %w", path, err)
	}
	return nil
}

// DecodeJSON decodes one JSON record, numbers as they were written; trailing data is
// refused.
func DecodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// RunHead reads run.yaml without its plan lists (included, skipped, unrunnable, carried):
// its id, agent, pins and times, which is what listing and choosing runs needs, without
// reading a plan of thousands of entries for each run.
func (s Store) RunHead() (*record.Run, error) {
	path := filepath.Join(s.Dir, "run.yaml")
	data, err := ReadRecord(path)
	if err != nil {
		return &record.Run{}, fmt.Errorf("read %s: %w", path, err)
	}
	r, err := unmarshalRun(data, false)
	if err != nil {
		return &r, fmt.Errorf("%s is corrupt: %w", path, err)
	}
	return &r, nil
}
