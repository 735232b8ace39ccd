package rooktest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
)

// A go test run over several agent packages (go test ./scenarios/... -rook.tag=smoke)
// gives every package the same selection flags. A package none of whose scenarios the
// selection names skips, saying where they are; only a selection that names nothing in
// any agent of the module is an error. Each package is its own process, so what other
// agents hold is read from their scenario files under scenarios/.

// narrowing says the selection flags that name scenarios, as the user gave them, or "".
func narrowing(o options) string {
	var parts []string
	for _, f := range []struct {
		name string
		list []string
	}{{"-rook.only", o.only}, {"-rook.tag", o.tags}, {"-rook.class", o.classes}, {"-rook.category", o.categories}} {
		if len(f.list) > 0 {
			parts = append(parts, f.name+"="+strings.Join(f.list, ","))
		}
	}
	return strings.Join(parts, " ")
}

// selects reports whether the selection flags let sc in (an excluded scenario only when
// -rook.only names it), whatever the shard or an earlier run says.
func selects(o options, sc *brief) bool {
	named := slices.Contains(o.only, sc.id)
	switch {
	case len(o.only) > 0 && !named,
		sc.has(excluded) && !named,
		len(o.tags) > 0 && !overlaps(o.tags, sc.tags),
		len(o.classes) > 0 && !slices.Contains(o.classes, sc.class),
		len(o.categories) > 0 && !slices.Contains(o.categories, sc.category):
		return false
	}
	return true
}

// noneSelected is why this suite runs nothing under the selection flags: a skipTest when
// another agent's scenarios are selected (its package runs them), an error when no agent's
// are. nil when the flags select one of this suite's scenarios, or select nothing.
func noneSelected(root string, s Suite, o options, scenarios []brief) error {
	flags := narrowing(o)
	if flags == "" || o.run != "" {
		return nil // a continued run keeps its plan
	}
	for i := range scenarios {
		if selects(o, &scenarios[i]) {
			return nil
		}
	}
	others, agents := otherSelections(root, s.Agent, o)
	if len(others) > 0 {
		return skipTest(fmt.Sprintf("%s selects none of agent %s's %d scenario(s); it selects %s, whose packages run them",
			flags, s.Agent, len(scenarios), strings.Join(others, ", ")))
	}
	where := fmt.Sprintf("agent %s", s.Agent)
	if len(agents) > 0 {
		where = fmt.Sprintf("any agent under scenarios/ (%s)", strings.Join(append(agents, s.Agent), ", "))
	}
	return fmt.Errorf("%s selects no scenario of %s; %s", flags, where, inUse(o, scenarios))
}

// otherSelections reads the scenario files of the module's other agents and says, per
// agent with any, how many the flags select; agents lists every other agent.
func otherSelections(root, agent string, o options) (selected, agents []string) {
	dirs, _ := os.ReadDir(filepath.Join(root, "scenarios"))
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == agent || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, "scenarios", d.Name(), "*.yaml"))
		if len(files) == 0 {
			continue
		}
		agents = append(agents, d.Name())
		n := 0
		var bf briefer
		for _, f := range files {
			sc, err := scenario.Load(f)
			if err != nil {
				continue
			}
			if b := bf.briefOf(sc.ID, sc, nil); selects(o, &b) {
				n++
			}
		}
		if n > 0 {
			selected = append(selected, fmt.Sprintf("%d of agent %s", n, d.Name()))
		}
	}
	return selected, agents
}

// inUse says what this suite's scenarios do carry, for the flags given.
func inUse(o options, scenarios []brief) string {
	seen := map[string]map[string]bool{"tags": {}, "classes": {}, "categories": {}}
	for _, sc := range scenarios {
		for _, tag := range sc.tags {
			seen["tags"][tag] = true
		}
		seen["classes"][sc.class] = sc.class != ""
		seen["categories"][sc.category] = sc.category != ""
	}
	var parts []string
	for _, k := range []struct {
		key  string
		used bool
	}{{"tags", len(o.tags) > 0}, {"classes", len(o.classes) > 0}, {"categories", len(o.categories) > 0}} {
		if !k.used {
			continue
		}
		var list []string
		for v, ok := range seen[k.key] {
			if ok {
				list = append(list, v)
			}
		}
		sort.Strings(list)
		if len(list) == 0 {
			list = []string{"none"}
		}
		parts = append(parts, fmt.Sprintf("its %s: %s", k.key, strings.Join(list, ", ")))
	}
	if len(parts) == 0 {
		return "check the ids"
	}
	return strings.Join(parts, "; ")
}

// unknownOnly refuses -rook.only ids that name no scenario of any agent of the module: a
// run that plans nothing because of a typo must not print ok. An id of another agent is
// that agent's package's to run.
func unknownOnly(root string, only []string, s Suite) error {
	ids := make([]string, len(s.Scenarios))
	for i, sc := range s.Scenarios {
		ids[i] = sc.ID
	}
	var all []string
	var problems []string
	for _, id := range only {
		if slices.Contains(ids, id) {
			continue
		}
		if all == nil {
			files, _ := filepath.Glob(filepath.Join(root, "scenarios", "*", "*.yaml"))
			all = []string{}
			for _, f := range files {
				all = append(all, strings.TrimSuffix(filepath.Base(f), ".yaml"))
			}
		}
		if slices.Contains(all, id) {
			continue
		}
		msg := fmt.Sprintf("-rook.only names %s, which is no scenario of agent %s or of any agent under scenarios/", id, s.Agent)
		if near := spec.Nearest(id, ids); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		} else if len(ids) > 0 {
			msg += fmt.Sprintf(" (agent %s's scenarios: %s)", s.Agent, strings.Join(ids, ", "))
		}
		problems = append(problems, msg)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}
