package store

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Every record file of an attempt (hooks.json, response.json, verdict.yaml, what is under
// evidence/ and artifacts/) is sealed as it is written: a line is appended to the attempt's
// manifest.jsonl with the file's name, its SHA-256, and a chain hash over the previous
// line's chain and these, so that a file edited, removed or added behind the writer's
// back, or a manifest whose lines were reordered or cut, is found (VerifySealed) at a
// named file. With ROOK_RECORD_KEY set (a CI secret) each line also holds an HMAC-SHA256
// of its chain under the key: someone without the key cannot write a chain that verifies,
// even recomputing every digest. Without a key the chain shows accidents and edits by a
// tool that does not know of it, not a deliberate forger, who can recompute it
// (docs/security.md).

// ManifestFile is the name of an attempt's manifest, and RecordKeyVar the variable the key
// is read from.
const (
	ManifestFile = "manifest.jsonl"
	RecordKeyVar = "ROOK_RECORD_KEY"
)

// seal is one line of a manifest.
type seal struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Chain  string `json:"chain"`
	MAC    string `json:"mac,omitempty"`
}

// sealMu keeps two writes of one process from interleaving a manifest's lines; settled
// are the attempt folders whose manifest's tail this process checked last (settleTail): a
// few hundred, so that a run of any size keeps nothing per scenario, and a folder checked
// long ago is checked again, which costs one read.
var (
	sealMu  sync.Mutex
	settled recent
)

// recent is a fixed set of the strings added last.
type recent struct {
	ring [256]string
	next int
}

func (r *recent) has(s string) bool { return slices.Contains(r.ring[:], s) }

func (r *recent) add(s string) {
	r.ring[r.next] = s
	r.next = (r.next + 1) % len(r.ring)
}

// sealedDir is the attempt folder path's record belongs to, and its name there; ok is
// false for a file that is no attempt's record (run.yaml, a scenario's snapshot, a file
// outside a run's folder).
func sealedDir(path string) (dir, rel string, ok bool) {
	dir, rel = filepath.Dir(path), filepath.Base(path)
	if b := filepath.Base(dir); b == "evidence" || b == "artifacts" {
		dir, rel = filepath.Dir(dir), b+"/"+rel
	}
	if rel == ManifestFile || rel == "snapshot.yaml" || strings.HasPrefix(filepath.Base(path), ".") {
		return "", "", false
	}
	// A run's folder holds run.yaml: <run>/scenarios/<id>/ is an attempt's (or a repeated
	// scenario's), and so is <run>/scenarios/<id>/attempts/<n>/. A module's own
	// scenarios/<agent>/ folder is not.
	run := ""
	switch parent := filepath.Dir(dir); filepath.Base(parent) {
	case "scenarios":
		run = filepath.Dir(parent)
	case "attempts":
		if sc := filepath.Dir(parent); filepath.Base(filepath.Dir(sc)) == "scenarios" {
			run = filepath.Dir(filepath.Dir(sc))
		}
	}
	if run == "" {
		return "", "", false
	}
	if info, err := os.Lstat(filepath.Join(run, "run.yaml")); err != nil || !info.Mode().IsRegular() {
		return "", "", false
	}
	return dir, rel, true
}

// sealWritten appends the seal of the record about to be renamed into place at path (sum,
// its hex SHA-256) to its attempt's manifest, chained to the manifest's last line. The
// seal comes first and the rename after it: a process killed between the two leaves the
// manifest's final line one write ahead of its file, which VerifySealed accepts only as
// that (the file as the line before sealed it, or absent when none did), and which the
// next process to write there seals as it is (settleTail). The other order would leave a
// file no line seals, which is what an edit looks like.
func sealWritten(path, sum string) error {
	dir, rel, ok := sealedDir(path)
	if !ok {
		return nil
	}
	sealMu.Lock()
	defer sealMu.Unlock()
	if !settled.has(dir) {
		if err := settleTail(dir); err != nil {
			return fmt.Errorf("seal %s: %w", path, err)
		}
		settled.add(dir)
	}
	return appendSeal(dir, rel, sum)
}

// settleTail seals the file of a manifest's final line as it is when that line is ahead of
// it: a write killed between its seal and its rename never happened, and the manifest says
// so before anything is chained after it. A file that is neither as its final line says
// nor as the line before sealed it is left for VerifySealed to name.
func settleTail(dir string) error {
	lines, err := readSeals(dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(lines) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	if got, ok := interrupted(dir, lines); ok {
		return appendSeal(dir, lines[len(lines)-1].File, got)
	}
	return nil
}

// interrupted reports whether the manifest's final line is a write that did not land: its
// file is as the file's line before sealed it ("" for absent, when none did), which is
// returned.
func interrupted(dir string, lines []seal) (string, bool) {
	final := lines[len(lines)-1]
	got := fileDigest(filepath.Join(dir, filepath.FromSlash(final.File)))
	if got == final.SHA256 {
		return "", false
	}
	before := ""
	for _, s := range lines[:len(lines)-1] {
		if s.File == final.File {
			before = s.SHA256
		}
	}
	return got, got == before
}

// appendSeal appends the line sealing file rel of dir as sum ("" for absent).
func appendSeal(dir, rel, sum string) error {
	prev, err := lastChain(filepath.Join(dir, ManifestFile))
	if err != nil {
		return err
	}
	s := seal{File: rel, SHA256: sum}
	s.Chain = chainOf(prev, s.File, s.SHA256)
	if key := os.Getenv(RecordKeyVar); key != "" {
		s.MAC = macOf(key, s.Chain)
	}
	line, _ := json.Marshal(s)
	f, err := os.OpenFile(filepath.Join(dir, ManifestFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// lastChain is the chain of a manifest's last line, read from its end (a line is a few
// hundred bytes); "" for a manifest not written yet.
func lastChain(path string) (string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }() // read only
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	at := max(0, info.Size()-4096)
	buf := make([]byte, info.Size()-at)
	if _, err := f.ReadAt(buf, at); err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	var s seal
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
		return "", fmt.Errorf("%s's last line does not read: %w", ManifestFile, err)
	}
	return s.Chain, nil
}

func chainOf(prev, file, sum string) string {
	h := sha256.Sum256([]byte(prev + "\n" + file + "\n" + sum))
	return hex.EncodeToString(h[:])
}

func macOf(key, chain string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(chain))
	return hex.EncodeToString(m.Sum(nil))
}

// maxManifest bounds a manifest read: a run writes an attempt's hooks.json a few times a
// turn, not a million times.
const maxManifest = 16 << 20

func readSeals(dir string) ([]seal, error) {
	data, err := ReadRecord(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, err
	}
	if len(data) > maxManifest {
		return nil, fmt.Errorf("%s is over %d bytes", ManifestFile, maxManifest)
	}
	out := make([]seal, 0, bytes.Count(data, []byte("\n"))+1)
	n := 0
	for line := range bytes.Lines(data) {
		n++
		var s seal
		if err := json.Unmarshal(bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")), &s); err != nil {
			return nil, fmt.Errorf("%s line %d does not read: %w", ManifestFile, n, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// VerifySealed checks an attempt folder's records against its manifest: the chain whole
// (and, with ROOK_RECORD_KEY set, every line keyed with it), every file it names as its
// last line says, and no record file it does not name. sealed says the folder's verdict
// claims a manifest (verdict.yaml's sealed): then one that is missing is a removal; an
// older run's records, written before manifests, have none to check. The error names what
// broke.
func VerifySealed(dir string, sealed bool) error {
	lines, err := readSeals(dir)
	key := os.Getenv(RecordKeyVar)
	switch {
	case errors.Is(err, fs.ErrNotExist) && (sealed || key != ""):
		return fmt.Errorf("%s was removed (its records were written with one)", ManifestFile)
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	last := map[string]string{}
	var order []string // the files as the manifest first names them, for a stable report
	prev := ""
	for i, s := range lines {
		if s.Chain != chainOf(prev, s.File, s.SHA256) {
			return fmt.Errorf("%s line %d (%s) does not follow the line before it: the manifest was edited, cut or reordered", ManifestFile, i+1, s.File)
		}
		if key != "" && !hmac.Equal([]byte(s.MAC), []byte(macOf(key, s.Chain))) {
			return fmt.Errorf("%s line %d (%s) is not keyed with %s: it was written without the key, or by someone who does not have it", ManifestFile, i+1, s.File, RecordKeyVar)
		}
		if _, ok := last[s.File]; !ok {
			order = append(order, s.File)
		}
		prev, last[s.File] = s.Chain, s.SHA256
	}
	// The final line alone may be one write ahead of its file: a process killed between a
	// write's seal and its rename (sealWritten).
	_, cut := interrupted(dir, lines)
	for _, file := range order {
		if cut && file == lines[len(lines)-1].File {
			continue // as the line before sealed it: the write never landed
		}
		got := fileDigest(filepath.Join(dir, filepath.FromSlash(file)))
		switch sum := last[file]; {
		case sum == "" && got != "":
			return fmt.Errorf("%s was added after the records were written", file)
		case sum == "":
		case got == "":
			return fmt.Errorf("%s was removed after it was written", file)
		case got != sum:
			return fmt.Errorf("%s was changed after it was written", file)
		}
	}
	for _, sub := range []string{".", "evidence", "artifacts"} {
		entries, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range entries {
			rel := filepath.ToSlash(filepath.Join(sub, e.Name()))
			if e.IsDir() || strings.HasPrefix(e.Name(), ".") || rel == ManifestFile || rel == "snapshot.yaml" {
				continue
			}
			if sum, ok := last[rel]; !ok || sum == "" && !(cut && rel == lines[len(lines)-1].File) {
				return fmt.Errorf("%s was added after the records were written", rel)
			}
		}
	}
	return nil
}
