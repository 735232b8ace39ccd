package lifecycle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// Continue opens run id under cfg.RecordsRoot to go on in place: phases its records show
// completed are not run again. A run whose records are missing or corrupt, or whose profile
// changed since, is refused.
func Continue(cfg Config, id string, now time.Time) (*Run, error) {
	st, f, snap, err := openRun(cfg.RecordsRoot, cfg.Agent, id)
	if err != nil {
		return nil, fmt.Errorf("continue run %s: %w", id, err)
	}
	dir := st.Dir
	if f.ID != id || f.Pins.ProfileID != cfg.Profile.ID {
		return nil, fmt.Errorf("continue run %s: %s records run %q of profile %q, not this profile %q", id, filepath.Join(dir, "run.yaml"), f.ID, f.Pins.ProfileID, cfg.Profile.ID)
	}
	if snap.SHA256 != cfg.Profile.SHA256 {
		return nil, fmt.Errorf("continue run %s: profile %s changed since the run started; start a new run, or -rook.resume=%s to carry unchanged work forward", id, cfg.Profile.ID, id)
	}
	if cfg.Selection == nil {
		cfg.Selection = All()
	}
	r := newRun(cfg, id, dir, now)
	if r.unlock, err = store.Lock(dir); err != nil {
		return nil, fmt.Errorf("continue run %s: %w", id, err)
	}
	r.file = *f
	for _, ph := range f.PhasesRun {
		r.phasesRun[spec.Phase(ph)] = true
	}
	if f.Prepare != nil {
		r.prepareEnd = onThisClock(f.Prepare.EndedAt)
	}
	// A continued run keeps the plan it started with: what this process selects only
	// narrows it (the caller decides with Planned), so run.yaml's lists stay as they are.
	r.file.Included, r.file.Skipped, r.file.Unrunnable = nonNil(f.Included), nonNil(f.Skipped), nonNil(f.Unrunnable)
	r.file.Finished = time.Time{}
	r.file.Quarantined = cfg.Quarantined // the list as it stands now decides the exit code
	if r.file.Carried == nil {
		r.file.Carried = []string{}
	}
	// A halt stops the process that halted; a continuation starts with a clean count.
	r.file.Halted, r.file.HaltReason = false, ""
	if err := r.makeStateDirs(); err != nil {
		return nil, fmt.Errorf("continue run %s: %w", id, err)
	}
	return r, r.writeRunFile()
}

// Planned returns the scenarios run id planned (run.yaml's included list), the plan a
// continuation keeps whatever selection flags it is given.
func Planned(recordsRoot, agent, id string) (map[string]bool, error) {
	_, f, _, err := openRun(recordsRoot, agent, id)
	if err != nil {
		return nil, fmt.Errorf("continue run %s: %w", id, err)
	}
	planned := map[string]bool{}
	for _, e := range f.Included {
		planned[e.ScenarioID] = true
	}
	return planned, nil
}

// openRun reads the run.yaml and profile.yaml of a recorded run.
func openRun(recordsRoot, agent, id string) (store.Store, *record.Run, *record.Profile, error) {
	st, err := store.OpenRun(recordsRoot, agent, id)
	if err != nil {
		return st, nil, nil, err
	}
	f, err := st.Run()
	if err != nil {
		return st, nil, nil, err
	}
	snap, err := st.Profile()
	if err != nil {
		return st, nil, nil, err
	}
	return st, f, snap, nil
}

// Prior is a finished run whose compatible work a new run carries forward.
type Prior struct {
	ID         string
	Dir        string
	ProfileSHA string
	scenarios  map[string]priorScenario
}

type priorScenario struct {
	dir      string
	snapshot []byte
	verdict  record.Verdict
}

// LoadPrior reads run id for -rook.resume. Every record it would carry must be whole: a
// file that does not parse refuses the resume, naming it, before anything runs.
func LoadPrior(recordsRoot, agent, id string) (*Prior, error) {
	st, _, snap, err := openRun(recordsRoot, agent, id)
	if err != nil {
		return nil, fmt.Errorf("resume from run %s: %w", id, err)
	}
	dir := st.Dir
	p := &Prior{ID: id, Dir: dir, ProfileSHA: snap.SHA256, scenarios: map[string]priorScenario{}}
	entries, err := os.ReadDir(filepath.Join(dir, "scenarios"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("resume from run %s: %w", id, err)
	}
	var problems []error
	for _, e := range entries {
		sdir := filepath.Join(dir, "scenarios", e.Name())
		vpath := filepath.Join(sdir, "verdict.yaml")
		if _, err := os.Stat(vpath); err != nil {
			continue // not judged: nothing to carry; the new run runs it
		}
		vp, err := store.ReadVerdict(sdir)
		if errors.Is(err, store.ErrUntrusted) {
			continue // never carried: the new run runs it
		}
		if err != nil {
			problems = append(problems, err)
			continue
		}
		v := *vp
		if v.Status != record.Pass && v.Status != record.Fail && v.Status != record.UnableToVerify {
			problems = append(problems, fmt.Errorf("%s has no status: the record is incomplete", vpath))
			continue
		}
		if v.Unanswered() {
			continue // a judge never answered it: the new run judges it again
		}
		snapshot, err := os.ReadFile(filepath.Join(sdir, "snapshot.yaml"))
		if err != nil {
			problems = append(problems, fmt.Errorf("%s is judged but its snapshot is missing: %w", sdir, err))
			continue
		}
		if err := checkRecords(sdir); err != nil {
			problems = append(problems, err)
			continue
		}
		p.scenarios[e.Name()] = priorScenario{dir: sdir, snapshot: snapshot, verdict: v}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("resume from run %s: its records are not whole, so nothing is carried:\n%w", id, errors.Join(problems...))
	}
	return p, nil
}

// checkRecords parses every record under a scenario folder (the hooks' own state aside).
func checkRecords(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "hook-state" || d.Name() == "artifacts") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		switch filepath.Ext(path) {
		case ".json":
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			var v any
			if err := store.DecodeJSON(data, &v); err != nil {
				return fmt.Errorf("%s is corrupt: %w", path, err)
			}
		case ".yaml":
			var v any
			return store.ReadYAML(path, &v)
		}
		return nil
	})
}

// Carry brings scenario sc's verdict forward from the prior run when the scenario and the
// profile are unchanged: the prior folder is copied, and the outcome is its verdict.
func (r *Run) Carry(prior *Prior, sc *scenario.Scenario) (*Outcome, bool) {
	ps, ok := prior.scenarios[sc.ID]
	if !ok || prior.ProfileSHA != r.cfg.Profile.SHA256 || string(ps.snapshot) != r.cfg.Redactor.String(string(sc.Source)) {
		return nil, false
	}
	dir := filepath.Join(r.Dir, "scenarios", sc.ID)
	// A repeated scenario is reported attempt by attempt, as when it ran.
	var attempts []*Attempt
	for n := 1; sc.Repeat > 1 && n <= sc.Repeat; n++ {
		av, err := store.ReadVerdict(attemptDir(ps.dir, n, sc.Repeat))
		if err != nil {
			return nil, false
		}
		subtests(sc, av.Criteria)
		attempts = append(attempts, &Attempt{ScenarioID: sc.ID, N: n, Dir: attemptDir(dir, n, sc.Repeat), Verdict: av})
	}
	// Copied whole or not at all: into a temporary folder, renamed into place, so that a
	// failed copy never leaves a folder that looks like a completed scenario.
	if err := os.MkdirAll(filepath.Join(r.Dir, "scenarios"), 0o755); err != nil {
		return nil, false
	}
	tmp, err := os.MkdirTemp(filepath.Join(r.Dir, "scenarios"), "."+sc.ID+".carry-")
	if err != nil {
		return nil, false
	}
	if err := store.CopyTree(ps.dir, tmp, nil); err != nil {
		_ = os.RemoveAll(tmp) // the scenario runs afresh; a leftover would only take space
		return nil, false
	}
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.RemoveAll(tmp)
		return nil, false
	}
	v := ps.verdict
	v.CarriedFrom = prior.ID
	if v.RunID == "" || v.RunID == prior.ID {
		v.RunID = r.ID
	}
	if err := r.cfg.Redactor.YAML(filepath.Join(dir, "verdict.yaml"), v); err != nil {
		return nil, false
	}
	r.mu.Lock()
	r.file.Carried = append(r.file.Carried, sc.ID)
	sort.Strings(r.file.Carried)
	if r.file.ResumeFrom == nil {
		id := prior.ID
		r.file.ResumeFrom = &id
	}
	r.mu.Unlock()
	o := &Outcome{Scenario: sc, Dir: dir, CarriedFrom: prior.ID, Verdict: &v, Attempts: attempts}
	subtests(sc, v.Criteria)
	if sc.Repeat <= 1 {
		o.Attempts = []*Attempt{{ScenarioID: sc.ID, N: 1, Dir: dir, Verdict: &v}}
	}
	return o, true
}

// SetResumeFrom records the run a new run resumes from.
func (r *Run) SetResumeFrom(id string) error {
	r.mu.Lock()
	r.file.ResumeFrom = &id
	r.mu.Unlock()
	return r.writeRunFile()
}
