package main

// rookgen report -merge combines the record folders of one sharded run into one run folder.
//
// A CI matrix runs a suite as N shards (-rook.shard=K/N), each in its own job, all with
// the same -rook.run-id, and uploads each shard's records. mergeRun takes those folders
// (downloaded artifacts) and writes the run one process would have written: every
// scenario's records under scenarios/, run.yaml with the whole plan, report.yaml summed
// from the verdicts, report.html; each shard's own run.yaml, report and prepare records
// are kept under shards/<K>/. It refuses shards that are not of one run: another run id,
// agent, profile revision, suite or shard count, a shard given twice, or one missing.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/page"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/store"
)

// findShards lists the run folders under dirs, grouped by run: one group per agent and run id,
// sorted by agent then id, each group's folders in the order found. Each dir is a run
// folder, or holds run folders at any depth (a records root, an artifact download). With
// id, only the folders of run id are kept.
func findShards(dirs []string, id string) ([][]string, error) {
	groups := map[string][]string{}
	for _, d := range dirs {
		n := 0
		err := filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !e.IsDir() {
				return nil
			}
			if e.Name() == ".judge-cache" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "run.yaml")); err != nil {
				return nil
			}
			if base := filepath.Base(path); id == "" || base == id {
				key := filepath.Base(filepath.Dir(path)) + "/" + base
				groups[key] = append(groups[key], path)
				n++
			}
			return filepath.SkipDir // a run's scenarios hold no run
		})
		if err != nil {
			return nil, fmt.Errorf("find shards in %s: %w", d, err)
		}
		if n == 0 {
			what := "no run folder"
			if id != "" {
				what = "no folder of run " + id
			}
			return nil, fmt.Errorf("%s holds %s (a run folder holds run.yaml)", d, what)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([][]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, groups[k])
	}
	return out, nil
}

// shard is one shard's run folder and its run.yaml.
type shard struct {
	dir string
	run *record.Run
	// prepareDefined says whether the shard's profile has a prepare hook.
	prepareDefined bool
}

// mergeRun merges the shard run folders dirs (as findShards lists them) into a new run folder
// under the records root root, <root>/<agent>/<run id>, and returns its path. The folder
// appears whole or not at all. Every name a shard's records give is hostile input: ids
// must be ids, every folder copied must be inside its shard, and suite, when not nil and
// known, gives the agent's scenario ids from the suite's own files: a scenario id outside
// them is refused.
func mergeRun(dirs []string, root string, now time.Time, suite func(agent string) (ids []string, known bool)) (string, error) {
	shards, err := read(dirs, suite)
	if err != nil {
		return "", err
	}
	first := shards[0].run
	dest := filepath.Join(root, first.Agent, first.ID)
	if _, err := os.Stat(dest); err == nil {
		return "", fmt.Errorf("%s already exists: merge into another records root (-dir), or remove it", dest)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", fmt.Errorf("merge: %w", err)
	}
	// Built beside the records, where no run listing looks (<root>/<agent>/<id>/ is what
	// a run is), and renamed into place when complete.
	tmp, err := os.MkdirTemp(root, ".merging-"+first.ID+"-")
	if err != nil {
		return "", fmt.Errorf("merge: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }() // nothing is left once renamed
	merged, prepare, took := combine(shards)
	for _, s := range shards {
		for _, e := range s.run.Included {
			sc := filepath.Join(s.dir, "scenarios", e.ScenarioID)
			if info, err := os.Lstat(sc); err != nil || !info.IsDir() {
				continue // not run in its shard (a link is no scenario folder): the report says so
			}
			if err := store.CopyTree(sc, filepath.Join(tmp, "scenarios", e.ScenarioID), nil); err != nil {
				return "", fmt.Errorf("merge shard %d/%d: %w", s.run.Shard.Index, s.run.Shard.Count, err)
			}
		}
		own := func(rel string) bool { return rel == "scenarios" || rel == "run.lock" }
		if err := store.CopyTree(s.dir, filepath.Join(tmp, "shards", fmt.Sprint(s.run.Shard.Index)), own); err != nil {
			return "", fmt.Errorf("merge shard %d/%d: %w", s.run.Shard.Index, s.run.Shard.Count, err)
		}
	}
	profile, err := store.ReadRecord(filepath.Join(shards[0].dir, "profile.yaml"))
	if err != nil {
		return "", fmt.Errorf("merge: %w", err)
	}
	none := store.NewRedactor(nil) // every shard's records are redacted already
	rep, sumErr := report.Summarize(tmp, merged, prepare, took, now)
	for _, err := range []error{
		store.WriteFile(filepath.Join(tmp, "profile.yaml"), profile),
		none.WriteRun(filepath.Join(tmp, "run.yaml"), merged),
		none.YAML(filepath.Join(tmp, "report.yaml"), rep),
		rep.Totals.Check(),
	} {
		if err != nil {
			return "", fmt.Errorf("merge: %w", err)
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		return "", fmt.Errorf("merge: %w", err)
	}
	return dest, errors.Join(sumErr, page.WriteFile(dest))
}

// trusted refuses shards whose records name what no run writes: an agent or run id that is
// not one folder name, or not the folder the shard is in; a scenario id that is not an id,
// or (with suite) not one of the suite's scenarios.
func trusted(shards []shard, suite func(agent string) ([]string, bool)) error {
	for _, s := range shards {
		agent, id := filepath.Base(filepath.Dir(s.dir)), filepath.Base(s.dir)
		switch {
		case !record.ValidID(s.run.Agent) || s.run.Agent != agent:
			return fmt.Errorf("%s: run.yaml names agent %q, not the agent folder %q it is in", s.dir, s.run.Agent, agent)
		case !store.ValidRunID(s.run.ID) || s.run.ID != id:
			return fmt.Errorf("%s: run.yaml names run %q, not the run folder %q it is in", s.dir, s.run.ID, id)
		}
		var ids []string
		known := false
		if suite != nil {
			ids, known = suite(s.run.Agent)
		}
		for _, list := range [][]record.Entry{s.run.Included, s.run.Skipped, s.run.Unrunnable} {
			for _, e := range list {
				if !record.ValidID(e.ScenarioID) {
					return fmt.Errorf("%s: run.yaml names scenario %q, which is no scenario id", s.dir, e.ScenarioID)
				}
				if known && !slices.Contains(ids, e.ScenarioID) {
					return fmt.Errorf("%s: run.yaml names scenario %s, which is not one of agent %s's scenario files", s.dir, e.ScenarioID, s.run.Agent)
				}
			}
		}
	}
	return nil
}

// read reads the shards' run.yaml, refuses names no run writes (trusted), and checks that
// they are the N shards of one run.
func read(dirs []string, suite func(agent string) ([]string, bool)) ([]shard, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no shard to merge")
	}
	var shards []shard
	for _, d := range dirs {
		st := store.Store{Dir: d}
		run, err := st.Run()
		if err != nil {
			return nil, fmt.Errorf("read shard: %w", err)
		}
		prof, err := st.Profile()
		if err != nil {
			return nil, fmt.Errorf("read shard: %w", err)
		}
		switch {
		case run.Shard == nil:
			return nil, fmt.Errorf("%s is not a shard: it ran without -rook.shard", d)
		case run.Shard.Index == 0:
			return nil, fmt.Errorf("%s is a merged run already, not a shard", d)
		}
		_, defined := prof.Hooks["prepare"]
		shards = append(shards, shard{dir: d, run: run, prepareDefined: defined})
	}
	if err := trusted(shards, suite); err != nil {
		return nil, err
	}
	slices.SortFunc(shards, func(a, b shard) int { return a.run.Shard.Index - b.run.Shard.Index })
	first := shards[0]
	for _, s := range shards[1:] {
		for _, c := range []struct{ what, a, b string }{
			{"run id", first.run.ID, s.run.ID},
			{"agent", first.run.Agent, s.run.Agent},
			{"profile", first.run.Pins.ProfileID, s.run.Pins.ProfileID},
			{"profile revision", first.run.Pins.ProfileRevision, s.run.Pins.ProfileRevision},
			{"scenario files (suite revision)", first.run.Shard.SuiteRevision, s.run.Shard.SuiteRevision},
			{"shard count", fmt.Sprint(first.run.Shard.Count), fmt.Sprint(s.run.Shard.Count)},
			{"shard plan", planName(first.run.Shard.Plan), planName(s.run.Shard.Plan)},
		} {
			if c.a != c.b {
				return nil, fmt.Errorf("shards of different runs: %s has %s %s, %s has %s: merge the shards of one run of one suite", first.dir, c.what, c.a, s.dir, c.b)
			}
		}
	}
	n := first.run.Shard.Count
	have := map[int]string{}
	for _, s := range shards {
		k := s.run.Shard.Index
		if other, dup := have[k]; dup {
			return nil, fmt.Errorf("shard %d/%d given twice: %s and %s", k, n, other, s.dir)
		}
		have[k] = s.dir
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if have[k] == "" {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("run %s is missing shard(s) %s: merge all %d, or its scenarios would look skipped", first.run.ID, strings.Join(missing, ", "), n)
	}
	if err := oneOwner(shards, first.run.Shard.Plan != "", n); err != nil {
		return nil, err
	}
	return shards, nil
}

// oneOwner checks that each scenario was run by one shard: the one its id hashes to, or,
// for shards of a plan (which the merge does not hold), whichever ran it first and alone.
func oneOwner(shards []shard, planned bool, n int) error {
	ran := map[string]int{}
	for _, s := range shards {
		k := s.run.Shard.Index
		for _, e := range s.run.Included {
			owner := record.ShardOf(e.ScenarioID, n)
			if planned {
				owner = k
				if other, twice := ran[e.ScenarioID]; twice {
					owner = other
				}
			}
			if owner != k {
				return fmt.Errorf("shard %d/%d (%s) ran %s, which shard %d/%d runs", k, n, s.dir, e.ScenarioID, owner, n)
			}
			ran[e.ScenarioID] = k
		}
	}
	return nil
}

// planName is a shard plan's hash as a refusal names it.
func planName(hash string) string {
	if hash == "" {
		return "none (the id hash)"
	}
	return hash
}
