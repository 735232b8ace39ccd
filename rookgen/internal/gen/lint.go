package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rookgo/rookgo/internal/spec"
)

// Lint names what rookgen reads no further although it looks meant to be read: .yml files,
// scenarios directly under scenarios/, an agent with scenarios and no profile (or a profile
// and no scenarios), and scenario keys that are neither this project's nor Rook's.
// rookgen prints each as a warning; with -strict they are errors.
func Lint(root string, agents []Agent) []string {
	var out []string
	rel := func(p string) string { return spec.RelErr(root, fmt.Errorf("%s", p)).Error() }
	yml, _ := filepath.Glob(filepath.Join(root, "profiles", "*", "*.yml"))
	more, _ := filepath.Glob(filepath.Join(root, "scenarios", "*", "*.yml"))
	for _, f := range append(yml, more...) {
		out = append(out, fmt.Sprintf("%s is ignored: rookgen reads .yaml files; rename it to %s", rel(f), strings.TrimSuffix(filepath.Base(f), ".yml")+".yaml"))
	}
	loose, _ := filepath.Glob(filepath.Join(root, "scenarios", "*.y*ml"))
	for _, f := range loose {
		out = append(out, fmt.Sprintf("%s is ignored: a scenario goes in scenarios/<agent>/, beside the agent's profiles in profiles/<agent>/", rel(f)))
	}
	known := map[string]bool{}
	for _, a := range agents {
		known[a.Name] = true
		switch {
		case len(a.Profiles) > 0 && len(a.Scenarios) == 0:
			out = append(out, fmt.Sprintf("profiles/%s has profiles but scenarios/%s has no scenario: nothing is generated for it", a.Name, a.Name))
		}
		for _, p := range a.Profiles {
			for _, v := range p.Env {
				if why := v.Undeclared(os.Getenv(v.Variable)); why != "" {
					out = append(out, fmt.Sprintf("%s: %s", rel(p.File), why))
				}
			}
		}
		for _, sc := range a.Scenarios {
			for _, w := range sc.Warnings {
				out = append(out, rel(w))
			}
		}
		out = append(out, probeWarnings(a, rel)...)
		out = append(out, LikelyMisspeltTools(rel, a)...)
	}
	dirs, _ := os.ReadDir(filepath.Join(root, "scenarios"))
	for _, d := range dirs {
		if !d.IsDir() || known[d.Name()] || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		if files, _ := filepath.Glob(filepath.Join(root, "scenarios", d.Name(), "*.yaml")); len(files) > 0 {
			out = append(out, fmt.Sprintf("scenarios/%s has scenarios but profiles/%s has no profile: they are not run", d.Name(), d.Name()))
		}
	}
	return out
}

// Typos are the scenario keys that look like a known key misspelt (forbidden_text for
// forbidden): the criterion or selection the author meant is silently missing. rookgen
// refuses them unless -lenient.
func Typos(root string, agents []Agent) []string {
	var out []string
	rel := func(p string) string { return spec.RelErr(root, fmt.Errorf("%s", p)).Error() }
	for _, a := range agents {
		out = append(out, UnknownTools(rel, a)...)
		for _, sc := range a.Scenarios {
			for _, w := range sc.Typos {
				out = append(out, spec.RelErr(root, fmt.Errorf("%s", w)).Error())
			}
		}
	}
	return out
}

// Settings names, per profile, the env entries with no secret: key that are settings (their
// name does not read as a credential): never redacted, as Rook's profiles have them.
// rookgen check -v prints them, once each.
func Settings(root string, agents []Agent) []string {
	var out []string
	for _, a := range agents {
		for _, p := range a.Profiles {
			var names []string
			for _, v := range p.Env {
				if v.Setting() {
					names = append(names, v.Variable)
				}
			}
			if len(names) > 0 {
				out = append(out, fmt.Sprintf("%s: %s: settings (no secret: key, a name that is not a credential's): never redacted, unless a value reads as a credential",
					spec.RelErr(root, fmt.Errorf("%s", p.File)).Error(), strings.Join(names, ", ")))
			}
		}
	}
	return out
}
