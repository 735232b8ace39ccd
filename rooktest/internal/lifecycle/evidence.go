package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// evidence is what the judge may read, rebuilt from the records alone.
func (a *attemptRun) evidence() (*check.Evidence, []record.Message, string) {
	ev := &check.Evidence{}
	var transcript []record.Message
	var raw string
	h := a.hooks.Phases
	if h.Execute != nil {
		for _, t := range h.Execute.Turns {
			if !t.OK {
				break
			}
			out, err := hook.FromData(t.Data, true)
			if err != nil {
				break
			}
			input := a.sc.TurnInput(t.Turn)
			ev.AddTurn(input, t.DurationMs, out)
			transcript = append(transcript, record.Message{Role: "user", Content: input}, record.Message{Role: "agent", Content: out.Reply})
			raw = t.Stdout
			if raw == "" { // recorded before stdout was kept as printed
				if b, err := json.Marshal(t.Data); err == nil {
					raw = string(b)
				}
			}
		}
	}
	if h.Collect != nil && h.Collect.OK {
		ev.Collect = h.Collect.Data
		if ev.Collect == nil {
			ev.Collect = map[string]any{}
		}
		if out, err := hook.FromData(h.Collect.Data, false); err == nil {
			ev.SetSession(out)
		}
	}
	if _, ok := a.r.cfg.Profile.Hooks[spec.Collect]; !ok {
		ev.NoCollect = fmt.Sprintf("profile %s has no collect hook, so there is no collect data", a.r.cfg.Profile.ID)
	}
	traced := a.applyTrace(ev)
	if !a.r.cfg.Profile.Capabilities.Calls && !traced {
		// The profile says its hooks do not observe calls: whatever they print is not
		// evidence of what was or was not called.
		ev.NoCalls = fmt.Sprintf("profile %s declares capabilities.calls: false, so calls are not observed", a.r.cfg.Profile.ID)
	}
	return ev, transcript, raw
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
