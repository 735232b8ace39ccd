package rooktest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
)

// load reads the profile and scenarios and checks them against what was generated.
// warnings are what the test repeats while it stands: the scenario keys that read like
// misspelt ones (generation let them stand only under -lenient) and the agent's profiles
// with no generated test. runs is go test's -run as a match on a subtest name.
func load(root string, s Suite, runs func(string) bool) (prof *spec.Profile, scenarios []brief, tools, warnings []string, err error) {
	fix := "the generated test is stale; run go generate ./... (or " + spec.GeneratorCommand(root) + ")"
	var problems []error
	prof, err = spec.LoadProfile(filepath.Join(root, s.Profile.Path), filepath.Join(root, "profiles", s.Agent))
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("load profile:\n%w", spec.RelErr(root, err))
	}
	if prof.SHA256 != s.Profile.SHA256 {
		problems = append(problems, fmt.Errorf("%s changed after the test was generated: %s", s.Profile.Path, fix))
	}
	known := map[string]bool{}
	scenarios = make([]brief, 0, len(s.Scenarios))
	var bf briefer
	for _, f := range s.Scenarios {
		known[filepath.ToSlash(f.Path)] = true
		sc, err := scenario.Load(filepath.Join(root, f.Path))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				problems = append(problems, fmt.Errorf("%s was deleted after the test was generated: %s", f.Path, fix))
				continue
			}
			problems = append(problems, spec.RelErr(root, err))
			continue
		}
		if sc.SHA256 != f.SHA256 {
			problems = append(problems, fmt.Errorf("%s changed after the test was generated: %s", f.Path, fix))
		}
		for _, ty := range sc.Typos {
			warnings = append(warnings, spec.RelErr(root, errors.New(ty)).Error())
		}
		tools = appendTools(tools, sc)
		scenarios = append(scenarios, bf.briefOf(f.ID, sc, runs))
	}
	files, _ := filepath.Glob(filepath.Join(root, "scenarios", s.Agent, "*.yaml"))
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		if !known[filepath.ToSlash(rel)] {
			problems = append(problems, fmt.Errorf("%s was added after the test was generated: %s", filepath.ToSlash(rel), fix))
		}
	}
	if len(problems) > 0 {
		return nil, nil, nil, nil, errors.Join(problems...)
	}
	slices.Sort(tools)
	return prof, scenarios, tools, append(warnings, ungenerated(root, s.Agent)...), nil
}

// ungenerated names the agent's profiles that have no generated test yet: go test -run
// for one of them says only [no tests to run].
func ungenerated(root, agent string) []string {
	var out []string
	profiles := spec.ProfileFiles(filepath.Join(root, "profiles", agent))
	for _, p := range profiles {
		id := strings.TrimSuffix(filepath.Base(p), ".yaml")
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(spec.GeneratedFile(agent, id)))); errors.Is(err, os.ErrNotExist) {
			out = append(out, fmt.Sprintf("profiles/%s/%s.yaml has no generated test yet (go test runs nothing for it): run go generate ./... (or %s)",
				agent, id, spec.GeneratorCommand(root)))
		}
	}
	return out
}

func interpretersPresent(p *spec.Profile) error {
	seen := map[string]bool{}
	var missing []string
	for _, ph := range spec.HookPhases {
		h, ok := p.Hooks[ph]
		if !ok || h.Go != "" {
			continue
		}
		prog := h.Argv(ph)[0]
		if seen[prog] {
			continue
		}
		seen[prog] = true
		if !strings.ContainsRune(prog, filepath.Separator) {
			if _, err := exec.LookPath(prog); err != nil {
				missing = append(missing, fmt.Sprintf("%s (for the %s hook)", prog, ph))
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("profile %s: hook programs not found in PATH: %s", p.ID, strings.Join(missing, ", "))
	}
	return nil
}

// appendTools adds the tools sc's criteria name to tools, each once: what the run's end
// compares with the tools it saw called (schedule.go, toolTypos).
func appendTools(tools []string, sc *scenario.Scenario) []string {
	for _, c := range sc.Criteria {
		for _, name := range check.ToolNames(c.Check) {
			if !slices.Contains(tools, name) {
				tools = append(tools, name)
			}
		}
	}
	return tools
}
