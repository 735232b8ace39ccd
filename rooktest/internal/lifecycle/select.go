package lifecycle

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/spec"
)

// Selection is the set of lifecycle phases this process runs.
type Selection map[spec.Phase]bool

// All selects every phase.
func All() Selection {
	s := Selection{}
	for _, p := range spec.Phases {
		s[p] = true
	}
	return s
}

// String lists the selected phases in lifecycle order.
func (s Selection) String() string {
	var names []string
	for _, p := range spec.Phases {
		if s[p] {
			names = append(names, string(p))
		}
	}
	return strings.Join(names, ",")
}

// ParseSelection reads -rook.phases or -rook.skip (never both) into a selection, checked
// against the profile: a hole, a defined phase skipped between two selected ones, is refused
// naming what is missing (undefined optional hooks are no hole; judge is always defined).
// continuing says the run already exists, so a suffix such as collect,judge is allowed.
func ParseSelection(phases, skip string, p *spec.Profile, continuing bool) (Selection, error) {
	if phases != "" && skip != "" {
		return nil, errors.New("-rook.phases and -rook.skip cannot be combined: name the phases to run, or the ones to leave out")
	}
	if phases == "" && skip == "" {
		return All(), nil
	}
	list := phases
	if skip != "" {
		list = skip
	}
	named := Selection{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		ph, err := spec.ParsePhase(name)
		if err != nil {
			return nil, err
		}
		named[ph] = true
	}
	if len(named) == 0 {
		return nil, fmt.Errorf("no phases named in %q", list)
	}
	sel := named
	flag := "-rook.phases=" + named.String()
	if skip != "" {
		sel = Selection{}
		for _, ph := range spec.Phases {
			if !named[ph] {
				sel[ph] = true
			}
		}
		flag = "-rook.skip=" + named.String()
		if len(sel) == 0 {
			return nil, fmt.Errorf("%s leaves no phase to run", flag)
		}
	}
	defined := func(ph spec.Phase) bool {
		if ph == spec.Judge {
			return true
		}
		_, ok := p.Hooks[ph]
		return ok
	}
	first, last := -1, -1
	for i, ph := range spec.Phases {
		if sel[ph] {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	var holes []string
	for _, ph := range spec.Phases[first:last] {
		if !sel[ph] && defined(ph) {
			holes = append(holes, string(ph))
		}
	}
	if len(holes) > 0 {
		return nil, fmt.Errorf("%s leaves a hole: profile %s defines %s, which would be skipped between the selected phases; select %s too, or run a prefix or a suffix of the lifecycle",
			flag, p.ID, andList(holes), andList(holes))
	}
	if !continuing {
		var before []string
		for _, ph := range spec.Phases[:first] {
			if defined(ph) {
				before = append(before, string(ph))
			}
		}
		if len(before) > 0 {
			return nil, fmt.Errorf("%s starts after %s, which a new run has not run; continue an earlier run with -rook.run=<run-id>", flag, andList(before))
		}
	}
	return sel, nil
}

func andList(items []string) string {
	items = append([]string(nil), items...)
	sort.SliceStable(items, func(i, j int) bool {
		a, _ := spec.ParsePhase(items[i])
		b, _ := spec.ParsePhase(items[j])
		return a.Index() < b.Index()
	})
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
