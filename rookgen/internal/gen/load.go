package gen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/ratelimit"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
)

// Load reads every agent under root: profiles/<agent>/*.yaml and scenarios/<agent>/*.yaml.
// Every problem in every file is reported at once.
func Load(root string) ([]Agent, error) {
	dirs, err := os.ReadDir(filepath.Join(root, "profiles"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read profiles: %w", err)
	}
	var agents []Agent
	var problems []error
	for _, d := range dirs {
		if strings.HasPrefix(d.Name(), ".") {
			continue
		}
		if !d.IsDir() {
			// A symlink to an agent directory is an agent directory; anything else is not one.
			if info, err := os.Stat(filepath.Join(root, "profiles", d.Name())); err != nil || !info.IsDir() {
				if d.Type()&os.ModeSymlink != 0 {
					problems = append(problems, fmt.Errorf("profiles/%s is a symlink to no directory: %v", d.Name(), err))
				}
				continue
			}
		}
		a := Agent{Name: d.Name(), ProfilePaths: map[string]string{}, ScenarioPaths: map[string]string{}}
		if !validAgent(a.Name) {
			problems = append(problems, fmt.Errorf("profiles/%s: agent directory names may hold only letters, digits, '-' and '_'", a.Name))
			continue
		}
		agentDir := filepath.Join(root, "profiles", a.Name)
		for _, f := range spec.ProfileFiles(agentDir) {
			p, err := spec.LoadProfile(f, agentDir)
			if err == nil && p.Rate != "" {
				if _, rerr := ratelimit.Parse(p.Rate); rerr != nil {
					err = p.Err(p.RateAt, "rate", rerr)
				}
			}
			if err != nil {
				problems = append(problems, spec.RelErr(root, err))
				continue
			}
			if n := len(path.Base(FileName(a.Name, p.ID))); n > maxFileName {
				problems = append(problems, fmt.Errorf("%s: profile id %q is too long: its generated file name would be %d bytes, more than a file system takes (%d)", slash(root, f), p.ID, n, maxFileName))
				continue
			}
			a.Profiles = append(a.Profiles, p)
			a.ProfilePaths[p.ID] = slash(root, f)
		}
		files, _ := filepath.Glob(filepath.Join(root, "scenarios", a.Name, "*.yaml"))
		sort.Strings(files)
		for _, f := range files {
			s, err := scenario.Load(f)
			if err != nil {
				problems = append(problems, spec.RelErr(root, err))
				continue
			}
			a.Scenarios = append(a.Scenarios, s)
			a.ScenarioPaths[s.ID] = slash(root, f)
		}
		problems = append(problems, subtestClashes(a)...)
		for _, err := range unregistered(root, a) {
			problems = append(problems, spec.RelErr(root, err))
		}
		ids := map[string]bool{}
		for _, s := range a.Scenarios {
			ids[s.ID] = true
		}
		if _, err := spec.LoadQuarantine(agentDir, time.Now(), ids); err != nil {
			problems = append(problems, spec.RelErr(root, err))
		}
		agents = append(agents, a)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return agents, nil
}

// maxFileName is the longest file name the common file systems take.
const maxFileName = 255

// subtestClashes names the scenarios whose subtests would have the same name: go test would
// add #01 to one of them, and -run would pick the wrong one.
func subtestClashes(a Agent) []error {
	var problems []error
	seen := map[string]string{}
	for _, s := range a.Scenarios {
		name := s.Subtest()
		if other, ok := seen[name]; ok {
			problems = append(problems, fmt.Errorf("%s and %s both make subtest %s, which go test -run cannot tell apart; change an id or a title",
				other, a.ScenarioPaths[s.ID], name))
			continue
		}
		seen[name] = a.ScenarioPaths[s.ID]
	}
	return problems
}

func validAgent(name string) bool {
	for _, r := range name {
		if !(r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return name != ""
}

func slash(root, f string) string {
	r, err := filepath.Rel(root, f)
	if err != nil {
		return filepath.ToSlash(f)
	}
	return filepath.ToSlash(r)
}

// Existing returns the generated files already under root/scenarios, by relative path:
// every <profile>_rook_test.go, and every rook_<profile>_test.go of earlier versions, that
// starts with rookgen's header.
func Existing(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	var files []string
	for _, pattern := range []string{"*_rook_test.go", "rook_*_test.go"} {
		matches, err := filepath.Glob(filepath.Join(root, "scenarios", "*", pattern))
		if err != nil {
			return nil, err
		}
		files = append(files, matches...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("read generated file: %w", err)
		}
		if bytes.HasPrefix(data, []byte(HeaderPrefix)) {
			out[slash(root, f)] = data
		}
	}
	return out, nil
}
