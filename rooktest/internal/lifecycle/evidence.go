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

// writeResponse fills in what the records say and writes response.json.
func (a *attemptRun) writeResponse(res *Attempt, notJudged string) *Attempt {
	a.flush()
	if notJudged != "" {
		res.NotJudged = notJudged
	} else if !res.Judged() {
		res.NotJudged = fmt.Sprintf("not judged: continue with -rook.run=%s", a.r.ID)
	}
	res.Failures, res.Problems = a.failures()
	res.Notes = a.each(func(rec *record.PhaseRecord) []string { return rec.Notes })
	res.Left = append(a.each(func(rec *record.PhaseRecord) []string { return rec.LeftRunning }), a.probeLeft...)
	ev := a.observed
	if ev == nil {
		ev = a.observe()
	}
	if !a.fresh() {
		var latency, hookMs int64
		var transcript []record.Message
		turns := ev.Turns()
		for _, t := range turns.Value {
			latency += t.LatencyMs
			hookMs += t.HookMs
			_, simulated := a.hooks.Simulation.Message(t.N)
			transcript = append(transcript, record.Message{Role: "user", Content: t.Input, Simulated: simulated}, record.Message{Role: "agent", Content: t.Output})
		}
		status := "completed"
		if !turns.Observed || len(res.Failures) > 0 {
			status = "failed"
		}
		var calls *[]record.Call
		if c := ev.Calls(); c.Observed {
			list := nonNil(c.Value)
			calls = &list
		}
		artifacts := a.artifacts()
		a.record(a.r.cfg.Redactor.JSON(filepath.Join(a.dir, "response.json"), record.Response{ScenarioID: a.sc.ID, Attempt: res.N,
			Status: status, Output: ev.Output().Value, RawResponse: a.rawResponse(), Transcript: nonNil(transcript), Calls: calls,
			Artifacts: nonNil(artifacts), Skipped: a.skipped, LatencyMs: latency, HookMs: hookMs, Turns: len(turns.Value), Usage: observe.Shown(ev.Usage())}))
	}
	res.RecordErr = errors.Join(append([]error{res.RecordErr}, a.errs...)...)
	return res
}

// artifacts copies the evidence files the hooks named into artifacts/, once, and returns
// their paths.
func (a *attemptRun) artifacts() []string {
	if !a.artsSet {
		a.artsSet = true
		for _, rec := range []*record.PhaseRecord{a.hooks.Phases.Execute, a.hooks.Phases.Collect} {
			if rec != nil {
				a.arts = append(a.arts, a.copyEvidence(rec.Data, len(a.arts)+1)...)
			}
		}
	}
	return a.arts
}

// failures rebuilds the hook failures from the records, whichever process ran them.
func (a *attemptRun) failures() (fails, problems []*PhaseError) {
	h := a.hooks.Phases
	if h.Open != nil && !h.Open.OK {
		fails = append(fails, recordError(spec.Open, a.sc.ID, h.Open))
	}
	if h.Execute != nil {
		for _, t := range h.Execute.Turns {
			if !t.OK {
				fails = append(fails, recordError(spec.Execute, a.sc.ID, t))
			}
		}
	}
	if h.Close != nil && !h.Close.OK {
		problems = append(problems, recordError(spec.Close, a.sc.ID, h.Close))
	}
	if h.Collect != nil && !h.Collect.OK {
		fails = append(fails, recordError(spec.Collect, a.sc.ID, h.Collect))
	}
	return fails, problems
}

func recordError(ph spec.Phase, scenario string, rec *record.PhaseRecord) *PhaseError {
	return &PhaseError{Phase: ph, Turn: rec.Turn, Scenario: scenario, Script: rec.Script, ExitCode: rec.ExitCode,
		TimedOut: rec.TimedOut, Stopped: rec.Stopped, Stderr: rec.Stderr, Err: errors.New(rec.Error)}
}

// each is what of returns for every phase record of the attempt, in lifecycle order, as
// phase: item (execute's by turn).
func (a *attemptRun) each(of func(*record.PhaseRecord) []string) []string {
	var out []string
	add := func(label string, rec *record.PhaseRecord) {
		for _, n := range of(rec) {
			out = append(out, label+": "+n)
		}
	}
	h := a.hooks.Phases
	for _, p := range []struct {
		label string
		rec   *record.PhaseRecord
	}{{"open", h.Open}, {"execute", h.Execute}, {"close", h.Close}, {"collect", h.Collect}} {
		if p.rec == nil {
			continue
		}
		if p.label == "execute" {
			for _, t := range p.rec.Turns {
				add(fmt.Sprintf("execute turn %d", t.Turn), t)
			}
			continue
		}
		add(p.label, p.rec)
	}
	return out
}
