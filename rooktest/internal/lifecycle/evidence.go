package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"syscall"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// observe is what was observed of the attempt, rebuilt from the records alone: every try
// of every turn and collect from hooks.json, the copied evidence files, the kept trace
// and the probes' answers.
func (a *attemptRun) observe() *observe.Observations {
	prof := a.r.cfg.Profile
	_, hasCollect := prof.Hooks[spec.Collect]
	obs := observe.New(observe.Profile{ID: prof.ID, Calls: prof.Capabilities.Calls, NoCollect: !hasCollect})
	obs.Hooks(a.hooks.Phases, a.turnInput)
	if t, err := readTrace(filepath.Join(a.dir, "evidence", tracesFile)); err == nil {
		obs.Trace(t)
	} else if !errors.Is(err, fs.ErrNotExist) {
		a.record(err)
	}
	a.files(obs)
	if ps, ok := a.readProbes(); ok {
		obs.ProbeAnswers(ps)
	}
	return obs
}

// rawResponse is the last turn's stdout as the hook printed it.
func (a *attemptRun) rawResponse() string {
	var raw string
	if h := a.hooks.Phases.Execute; h != nil {
		for _, t := range h.Turns {
			if !t.OK {
				break
			}
			raw = t.Stdout
			if raw == "" { // recorded before stdout was kept as printed
				if b, err := json.Marshal(t.Data); err == nil {
					raw = string(b)
				}
			}
		}
	}
	return raw
}

// maxFileText bounds what of one copied evidence file is read as evidence.
const maxFileText = 1 << 20

// copyPrefix is what copyEvidence puts before the hook's own name of an evidence file.
var copyPrefix = regexp.MustCompile(`^(attempt-\d+-)?\d{2}-`)

// files adds the attempt's copied evidence files, each bounded, named as the records name
// them and as the hook did, and the ones that could not be copied.
func (a *attemptRun) files(obs *observe.Observations) {
	for _, rel := range a.artifacts() {
		path := rel
		if !filepath.IsAbs(path) {
			path = filepath.Join(a.r.cfg.Workspace, rel)
		}
		f, err := os.Open(path)
		if err != nil {
			obs.Unreadable(rel, err.Error())
			continue
		}
		b, err := io.ReadAll(io.LimitReader(f, maxFileText+1))
		_ = f.Close() // read only
		if err != nil {
			obs.Unreadable(rel, err.Error())
			continue
		}
		name := filepath.Base(path)
		cut := len(b) > maxFileText
		if cut {
			b = b[:maxFileText]
		}
		obs.File(observe.File{Name: name, Reported: copyPrefix.ReplaceAllString(name, ""), Text: string(b)}, cut)
	}
	for _, s := range a.skipped {
		obs.Unreadable(s.File, s.Why)
	}
}

// copyEvidence copies a hook's evidence_file into the scenario's artifacts/ as NN-<name>;
// with repeat, every attempt's copies go there too, as attempt-<n>-NN-<name>.
func (a *attemptRun) copyEvidence(data map[string]any, n int) []string {
	path, _ := data["evidence_file"].(string)
	if path == "" {
		return nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(a.r.cfg.Workspace, path)
	}
	dst := filepath.Join(a.dir, "artifacts", fmt.Sprintf("%02d-%s", n, filepath.Base(path)))
	if a.sc.Repeat > 1 {
		dst = filepath.Join(a.r.Dir, "scenarios", a.sc.ID, "artifacts", fmt.Sprintf("attempt-%d-%02d-%s", a.n, n, filepath.Base(path)))
	}
	b, cut, err := readEvidenceFile(path)
	if err != nil {
		if _, derr := os.Stat(dst); derr == nil {
			return []string{a.r.rel(dst)} // copied by an earlier process
		}
		a.skipped = append(a.skipped, record.SkippedFile{File: a.r.rel(path), Why: err.Error()})
		if a.log != nil {
			a.log(fmt.Sprintf("artifacts: evidence_file %s is not copied: %v", a.r.rel(path), err))
		}
		return nil
	}
	if cut {
		a.skipped = append(a.skipped, record.SkippedFile{File: a.r.rel(path),
			Why: fmt.Sprintf("larger than %d MiB: only its first %d MiB are copied", MaxEvidenceFile>>20, MaxEvidenceFile>>20)})
	}
	a.record(a.r.cfg.Redactor.Bytes(dst, b))
	return []string{a.r.rel(dst)}
}

// MaxEvidenceFile bounds what of one evidence file is copied into the records.
const MaxEvidenceFile = 64 << 20

// readEvidenceFile reads a file a hook named, as hostile input: only a regular file (no
// symlink followed, no device, FIFO or folder), opened without blocking, and at most
// MaxEvidenceFile bytes of it; cut says it was longer.
func readEvidenceFile(path string) (data []byte, cut bool, err error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, false, err
	}
	if !info.Mode().IsRegular() {
		return nil, false, fmt.Errorf("not a regular file (%s): only regular files are copied", info.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = f.Close() }() // read only
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || !os.SameFile(st, info) {
		return nil, false, errors.New("the file changed while it was opened: not copied")
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxEvidenceFile+1))
	if err != nil {
		return nil, false, err
	}
	if len(data) > MaxEvidenceFile {
		return data[:MaxEvidenceFile], true, nil
	}
	return data, false, nil
}
