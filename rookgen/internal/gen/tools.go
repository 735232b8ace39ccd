package gen

import (
	"fmt"
	"slices"
	"sort"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/spec"
)

// toolUse is one criterion naming a tool.
type toolUse struct {
	file, criterion string
	line            int
}

// toolsOf maps each tool the agent's criteria name to where they name it.
func toolsOf(a Agent) map[string][]toolUse {
	out := map[string][]toolUse{}
	for _, sc := range a.Scenarios {
		for _, c := range sc.Criteria {
			for _, name := range check.ToolNames(c.Check) {
				out[name] = append(out[name], toolUse{file: sc.File, criterion: c.ID, line: c.Line})
			}
		}
	}
	return out
}

// UnknownTools are the criteria that name a tool a profile's tools: list does not have:
// errors, as a misspelt key is (rookgen refuses them unless -lenient).
func UnknownTools(rel func(string) string, a Agent) []string {
	var out []string
	uses := toolsOf(a)
	for _, name := range sortedKeys(uses) {
		for _, p := range a.Profiles {
			if p.Tools == nil || slices.Contains(p.Tools, name) {
				continue
			}
			for _, u := range uses[name] {
				msg := fmt.Sprintf("%s:%d: criterion %s names tool %q, which profile %s's tools: list does not have", rel(u.file), u.line, u.criterion, name, p.ID)
				if near := spec.Nearest(name, p.Tools); near != "" {
					msg += fmt.Sprintf("; did you mean %q?", near)
				}
				out = append(out, msg)
			}
		}
	}
	return out
}

// LikelyMisspeltTools warns of a tool only one criterion names, that reads like one other
// criteria name: not_called of a misspelt tool passes for ever. Profiles with a tools:
// list are checked by UnknownTools instead.
func LikelyMisspeltTools(rel func(string) string, a Agent) []string {
	for _, p := range a.Profiles {
		if p.Tools != nil {
			return nil
		}
	}
	var out []string
	uses := toolsOf(a)
	for _, name := range sortedKeys(uses) {
		if len(uses[name]) > 1 {
			continue
		}
		var others []string
		for other := range uses {
			if other != name {
				others = append(others, other)
			}
		}
		sort.Strings(others)
		if near := spec.Nearest(name, others); near != "" {
			u := uses[name][0]
			out = append(out, fmt.Sprintf("%s:%d: criterion %s names tool %q, which no other criterion names; did you mean %q? (declare the agent's tools: in its profiles to make this an error)",
				rel(u.file), u.line, u.criterion, name, near))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
