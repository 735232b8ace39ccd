package rooktest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rookgo/rookgo/internal/spec"
)

// What a run says at its end of what its profile and suite declare and it did not see.

// capabilities warns, once per run, when the profile declares calls or usage that no hook
// of this process reported: the checks that need them were Unable to Verify, not proven.
// Under -rook.strict it fails.
func (r *Run) capabilities() {
	ran, calls, usage, notes := r.run.Reported()
	if !ran {
		return
	}
	caps := r.profile.Capabilities
	for _, c := range []struct {
		declared, reported bool
		key, want          string
	}{{caps.Calls, calls, "calls", `"calls": [...] (or [] when none were made)`}, {caps.Usage, usage, "usage", `"usage": {input, output}`}} {
		if !c.declared || c.reported {
			continue
		}
		msg := fmt.Sprintf("profile %s declares capabilities.%s: true, but no hook reported %s in this run and no trace showed any, so its %s checks could not be observed; return %s from execute or collect, export the agent's spans (traces: otlp), or declare capabilities.%s: false",
			r.profile.ID, c.key, c.key, c.key, c.want, c.key)
		if near := nearMissesOf(notes, `"`+c.key+`"`); len(near) > 0 {
			msg += "; the hooks printed a near miss: " + strings.Join(near, "; ")
		}
		r.warn(r.t, msg)
	}
}

// toolTypos warns of a tool the suite's criteria name that no attempt was observed to call,
// when it reads like one that was: not_called of a misspelt tool passes for ever.
func (r *Run) toolTypos() {
	seen := r.run.ToolsSeen()
	if len(seen) == 0 {
		return
	}
	for _, name := range r.criterionTools {
		if slices.Contains(seen, name) {
			continue
		}
		if near := spec.Nearest(name, seen); near != "" {
			r.warn(r.t, r.show(fmt.Sprintf("the suite's criteria name tool %q, which no attempt of this run was observed to call; did you mean %q, which was called? (declare the agent's tools: in its profile to make this an error)", name, near)))
		}
	}
}

// nearMissesOf are the notes that name key as the contract's key.
func nearMissesOf(notes []string, key string) []string {
	var out []string
	for _, n := range notes {
		if strings.Contains(n, "the hook contract's key is "+key) {
			out = append(out, n)
		}
	}
	return out
}
