package rooktest

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// decision is what the run does with one scenario.
type decision uint8

const (
	include decision = iota
	skip
	unrunnable
)

// planOne applies the plan of a continued run, selection, exclusion, executability and
// runnability, in that order. planned is nil for a new run; for a run that -rook.run
// continues, it is the plan the run started with, which selection flags only narrow.
func planOne(o options, p *spec.Profile, sc *brief, planned map[string]bool) (decision, string) {
	named := slices.Contains(o.only, sc.id)
	switch {
	case planned != nil && !planned[sc.id]:
		return skip, fmt.Sprintf("not planned by run %s, which keeps the plan it started with", o.run)
	case o.shard.excludes(sc.id):
		return skip, record.ShardSkipped(o.shard.of(sc.id), o.shard.n, o.shard.String())
	case o.rerun != nil && !o.rerunPlanned[sc.id]:
		return skip, fmt.Sprintf("not selected: run %s did not run it (-rook.failed runs again what that run ran and did not pass)", o.failed)
	case o.rerun != nil && !o.rerun[sc.id]:
		return skip, fmt.Sprintf("not selected: it passed in run %s (-rook.failed)", o.failed)
	case len(o.only) > 0 && !named:
		return skip, "not selected: not named by -rook.only"
	case sc.has(excluded) && !named && planned == nil && o.rerun == nil:
		return skip, "excluded (excluded: true); name it in -rook.only to run it"
	case len(o.tags) > 0 && !overlaps(o.tags, sc.tags):
		return skip, fmt.Sprintf("not selected: it has none of the tags %s", strings.Join(o.tags, ", "))
	case len(o.classes) > 0 && !slices.Contains(o.classes, sc.class):
		return skip, fmt.Sprintf("not selected: its class %q is not %s", sc.class, strings.Join(o.classes, ", "))
	case len(o.categories) > 0 && !slices.Contains(o.categories, sc.category):
		return skip, fmt.Sprintf("not selected: its category %q is not %s", sc.category, strings.Join(o.categories, ", "))
	case sc.has(notExecutable):
		why := sc.skipReason
		if why == "" {
			why = "no skip_reason given"
		}
		return skip, "not executable: " + why
	}
	if why := unrunnableWhy(p, sc); why != "" {
		return unrunnable, why
	}
	return include, ""
}

// unrunnableWhy says why the profile cannot run the scenario at all, or "".
func unrunnableWhy(p *spec.Profile, sc *brief) string {
	if sc.has(multiTurn) && !p.Capabilities.MultiTurn {
		return fmt.Sprintf("it takes %d turns and %s's hooks keep no conversation (capabilities.multi_turn is false)", sc.turns, p.ID)
	}
	if sc.has(gradesUsage) && !p.Capabilities.Usage {
		return fmt.Sprintf("it grades token usage and %s's hooks report none (capabilities.usage is false)", p.ID)
	}
	return ""
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}

// plan decides each scenario: included, skipped (with why) or unrunnable (with why). A
// scenario the run's selection left out is skipped, whether or not it could have run: the
// run counts what it was asked to run, as Rook's run.yaml lists an unselected scenario.
func (r *Run) plan(scenarios []brief, planned map[string]bool) (included, skipped, unrun []record.Entry) {
	if !slices.IsSortedFunc(r.suite.Scenarios, func(a, b Scenario) int { return strings.Compare(a.ID, b.ID) }) {
		r.indexOf = make(map[string]int, len(r.suite.Scenarios))
		for i, f := range r.suite.Scenarios {
			r.indexOf[f.ID] = i
		}
	}
	included = make([]record.Entry, 0, len(scenarios))
	shared := map[string]string{}
	for k := range scenarios {
		sc := &scenarios[k]
		d, why := planOne(r.opts, r.profile, sc, planned)
		if s, ok := shared[why]; ok {
			why = s
		} else {
			shared[why] = why
		}
		if i, ok := r.index(sc.id); ok {
			r.plans[i] = planCell{decision: d}
			if why != "" {
				r.whys[i] = why
			}
		}
		switch d {
		case include:
			included = append(included, record.Entry{ScenarioID: sc.id, Why: "selected"})
		case skip:
			skipped = append(skipped, record.Entry{ScenarioID: sc.id, Why: why})
		case unrunnable:
			unrun = append(unrun, record.Entry{ScenarioID: sc.id, Why: why})
		}
	}
	return included, skipped, unrun
}

// index finds scenario id in the suite: by binary search, as the generator writes the
// scenarios sorted by id (a long suite needs no map of them).
func (r *Run) index(id string) (int, bool) {
	if r.indexOf != nil {
		i, ok := r.indexOf[id]
		return i, ok
	}
	return slices.BinarySearchFunc(r.suite.Scenarios, id, func(s Scenario, id string) int { return strings.Compare(s.ID, id) })
}

// planOf is scenario id's plan; ok is false for an id not in the suite.
func (r *Run) planOf(id string) (p plan, ok bool) {
	i, ok := r.index(id)
	if !ok {
		return plan{}, false
	}
	return plan{decision: r.plans[i].decision, why: r.whys[i], fed: r.plans[i].fed}, true
}

// slots is how many scenarios may be in flight at once, and the limiter that holds them
// to it: the flag's number or the profile's, or, under -rook.concurrency=auto, a limit that
// follows the CPU the hooks use, up to the profile's concurrency when it sets one (what
// the agent bears), else eight scenarios per core.
func (c *setup) slots() (int, *slotLimiter) {
	if !c.opts.autoConcurrency {
		n := cmp.Or(c.opts.concurrency, c.prof.Concurrency)
		return n, fixedSlots(n)
	}
	cores := runtime.GOMAXPROCS(0)
	ceiling, why := 8*cores, fmt.Sprintf("eight per core of %d; set the profile's concurrency to bound it by what the agent bears", cores)
	if c.prof.ConcurrencyGiven {
		ceiling, why = c.prof.Concurrency, "the profile's concurrency"
	}
	l := autoSlots(slotAuto{Ceiling: ceiling, Cores: cores,
		CPU: func() time.Duration { return hook.Spent() + selfCPU() }})
	c.notes = append(c.notes, fmt.Sprintf("-rook.concurrency=auto: the scenarios in flight follow the CPU the hooks and this process use, from %d up to %d (%s)",
		l.Limit(), ceiling, why))
	return ceiling, l
}
