// Package affected maps the files a change touched to the scenarios it may change the
// outcome of: every scenario of an agent whose profile or hook scripts changed, a scenario
// whose file changed, a scenario whose sources name a changed file or whose exercises name
// a tool a changed file is named after, and, failing safe, a scenario that a changed file
// nothing places elsewhere could affect (the agent's own code, most often), narrowed by the
// scenario's sources or its agent's profiles' sources. It writes what it found for
// -rook.only=@affected to read.
package affected

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// File is where the affected set is kept, relative to the module root.
const File = ".rook/affected.json"

// Set is what a change affects.
type Set struct {
	// Base is the ref the change is measured from; Commit the merge base of it and HEAD.
	Base   string `json:"base"`
	Commit string `json:"commit"`
	// Changed are the files changed since Commit (committed, staged, unstaged and
	// untracked), as slash paths relative to the module root.
	Changed []string `json:"changed"`
	// Agents are the affected scenarios of each agent of the module, with why; an agent
	// with none is listed with an empty list.
	Agents map[string][]Hit `json:"agents"`
}

// Hit is one affected scenario and the first reason found.
type Hit struct {
	ScenarioID string `json:"scenario_id"`
	Why        string `json:"why"`
}

// Suite is one agent's files.
type Suite struct {
	Agent     string
	Profiles  []*spec.Profile
	Scenarios []*spec.Scenario
}

// Changed lists the files changed in the git work tree at root since the merge base of
// base and HEAD, untracked files included, as slash paths relative to root.
func Changed(root, base string) (commit string, files []string, err error) {
	git := func(args ...string) ([]byte, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}
	out, err := git("merge-base", base, "HEAD")
	if err != nil {
		return "", nil, fmt.Errorf("find where HEAD left %s (give -base a branch, tag or commit this repository has): %w", base, err)
	}
	commit = strings.TrimSpace(string(out))
	diff, err := git("diff", "--name-only", "--no-renames", "--relative", "-z", commit)
	if err != nil {
		return "", nil, err
	}
	untracked, err := git("ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return "", nil, err
	}
	seen := map[string]bool{}
	for _, f := range bytes.Split(append(diff, untracked...), []byte{0}) {
		if name := string(f); name != "" && !seen[name] {
			seen[name] = true
			files = append(files, name)
		}
	}
	sort.Strings(files)
	return commit, files, nil
}

// Map says which scenarios of each suite the changed files affect.
func Map(root string, changed []string, suites []Suite) map[string][]Hit {
	out := map[string][]Hit{}
	for _, s := range suites {
		hits := []Hit{}
		all := whole(root, s, changed)
		var sources []string // the agent's own code, as its profiles place it
		for _, p := range s.Profiles {
			sources = append(sources, p.Sources...)
		}
		for _, sc := range s.Scenarios {
			why := all
			if why == "" {
				why = one(root, s.Agent, sc, changed)
			}
			if why == "" {
				why = unplaced(s.Agent, sc, sources, changed)
			}
			if why != "" {
				hits = append(hits, Hit{ScenarioID: sc.ID, Why: why})
			}
		}
		out[s.Agent] = hits
	}
	return out
}

// whole says why every scenario of the suite is affected: a file under its profiles
// folder (a profile, a script, the quarantine list) or a hook's program changed.
func whole(root string, s Suite, changed []string) string {
	dir := "profiles/" + s.Agent + "/"
	hooks := map[string]bool{}
	for _, p := range s.Profiles {
		for ph, h := range p.Hooks {
			for _, arg := range h.Argv(ph) {
				if rel := within(root, p.AgentDir, arg); rel != "" {
					hooks[rel] = true
				}
			}
		}
	}
	for _, f := range changed {
		if strings.HasPrefix(f, dir) && path.Base(f) != spec.QuarantineFile {
			return f + " changed (the agent's profiles and hooks)"
		}
		if hooks[f] {
			return f + " changed (a hook of the agent's profiles)"
		}
	}
	return ""
}

// within is arg as a slash path relative to root when it names a file in root (an
// absolute path, or one relative to dir, where hooks run), else "".
func within(root, dir, arg string) string {
	p := arg
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	if info, err := os.Stat(p); err != nil || info.IsDir() {
		return ""
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.ToSlash(rel)
}

// one says why one scenario is affected: its file, a source it names, a tool it exercises
// that a changed file is named after, or the quarantine list naming it.
func one(root, agent string, sc *spec.Scenario, changed []string) string {
	file := "scenarios/" + agent + "/" + sc.ID + ".yaml"
	for _, f := range changed {
		switch {
		case f == file:
			return f + " changed"
		case f == "profiles/"+agent+"/"+spec.QuarantineFile && quarantined(root, agent, sc.ID):
			return f + " changed, and names it"
		}
		for _, src := range sc.Sources {
			s := strings.TrimPrefix(path.Clean(filepath.ToSlash(src)), "./")
			if f == s || f == "scenarios/"+agent+"/"+s || strings.HasPrefix(f, strings.TrimSuffix(s, "/")+"/") {
				return f + " changed, a source it names (" + src + ")"
			}
		}
		base := strings.TrimSuffix(path.Base(f), path.Ext(f))
		for _, name := range sc.Exercises {
			if base == name {
				return f + " changed, named after " + name + ", which it exercises"
			}
		}
	}
	return ""
}

// unplaced says why a scenario is affected by a change nothing shows leaves it alone: a
// changed file that is not another agent's, not the records, not another scenario's file or
// a generated test, and that neither the scenario's sources nor its agent's profiles'
// sources place elsewhere. A change to the agent's own code is what such a file most often
// is.
func unplaced(agent string, sc *spec.Scenario, sources, changed []string) string {
	for _, f := range changed {
		if harness(agent, f) {
			continue
		}
		switch {
		case len(sc.Sources) > 0:
			continue // the scenario says what it depends on, and one() read it
		case len(sources) > 0:
			for _, src := range sources {
				if under(f, src) {
					return f + " changed, in the agent's sources (" + src + ")"
				}
			}
		default:
			return f + " changed, and nothing shows it leaves the scenario alone (give the scenario or the agent's profiles sources: to narrow what affects it)"
		}
	}
	return ""
}

// harness says whether a changed file is shown to leave agent's scenarios alone: the
// records, another agent's scenarios and profiles, a scenario file (each scenario's own is
// read by one), a generated test.
func harness(agent, f string) bool {
	top, rest, _ := strings.Cut(f, "/")
	switch top {
	case ".rook", "labels":
		return true
	case "scenarios", "profiles":
		owner, _, _ := strings.Cut(rest, "/")
		if owner != agent {
			return true
		}
		return top == "profiles" || path.Ext(f) == ".yaml" || strings.HasSuffix(f, "_rook_test.go")
	}
	return false
}

// under says whether f is src or inside it.
func under(f, src string) bool {
	s := strings.TrimSuffix(strings.TrimPrefix(path.Clean(filepath.ToSlash(src)), "./"), "/")
	return f == s || strings.HasPrefix(f, s+"/")
}

func quarantined(root, agent, id string) bool {
	q, err := spec.LoadQuarantine(filepath.Join(root, "profiles", agent), spec.Epoch, nil)
	if err != nil {
		return true // a list that does not read is said by rookgen check; count it as naming every scenario
	}
	_, ok := q[id]
	return ok
}

// Save writes s to File under root.
func Save(root string, s Set) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return store.WriteFile(filepath.Join(root, filepath.FromSlash(File)), append(b, '\n'))
}

// ErrNone is the error of Load when no affected set was written.
var ErrNone = errors.New("no affected set: run rookgen affected first")

// Load reads the affected set under root.
func Load(root string) (Set, error) {
	var s Set
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(File)))
	if errors.Is(err, fs.ErrNotExist) {
		return s, fmt.Errorf("%s: %w", File, ErrNone)
	}
	if err != nil {
		return s, fmt.Errorf("read %s: %w", File, err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s is corrupt: %w", File, err)
	}
	return s, nil
}

// IDs are the affected scenario ids of agent.
func (s Set) IDs(agent string) []string {
	var ids []string
	for _, h := range s.Agents[agent] {
		ids = append(ids, h.ScenarioID)
	}
	return ids
}
