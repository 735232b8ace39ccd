package observe

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
)

// This file is the merge policy the package comment states: how the calls and usage every
// source reported become one value with its coverage.

// Calls are the calls observed, merged from every source by the package's policy, each
// with its provenance. Whether they are all the calls made is the coverage's Complete.
func (o *Observations) Calls() Seen[[]record.Call] {
	if !o.profile.Calls && !o.traced {
		return seen[[]record.Call](o, Calls, nil, false, false,
			fmt.Sprintf("profile %s declares capabilities.calls: false, so calls are not observed", o.profile.ID))
	}
	var calls []record.Call
	var gaps, unseen []string
	observed := false
	sources := map[string]bool{}
	for _, t := range o.turns {
		if !t.hookCalls && !o.traced {
			unseen = append(unseen, fmt.Sprint(t.N))
			continue
		}
		observed = true
		calls = append(calls, t.calls...)
		if t.hookCalls {
			sources["execute"] = true
		}
		if o.traced {
			sources["trace"] = true
		}
		if why := o.callsGap(t); why != "" {
			gaps = append(gaps, why)
		}
	}
	session := o.only == 0
	if session {
		if len(o.unplaced)+len(o.outside) > 0 {
			observed, sources["trace"] = true, true
			calls = append(append(calls, o.outside...), o.unplaced...)
		}
		if o.collectSaid {
			observed, sources["collect"] = true, true
			calls = same(calls, o.collectCalls, "collect")
		}
	}
	if !session && len(o.unplaced) > 0 {
		gaps = append(gaps, fmt.Sprintf("%d tool span(s) whose parent never arrived could be this turn's (%s)", len(o.unplaced), names(o.unplaced)))
	}
	whole := len(unseen) == 0 && len(gaps) == 0 || session && o.collectSaid
	var why string
	switch {
	case !observed && !session:
		why = fmt.Sprintf("turn %d reported no \"calls\"; collect's calls are the whole session's and cannot be put in a turn", o.only)
	case !observed:
		why = "no phase reported calls, so calls were not observable (return \"calls\" from execute or collect)"
	case len(unseen) > 0:
		why = fmt.Sprintf("turn %s reported no \"calls\" (and collect reported no session calls), so calls in that turn were not observable", strings.Join(unseen, ", "))
	}
	if !whole {
		why = strings.Join(append(nonEmpty(why), gaps...), "; ")
	}
	if calls == nil && observed {
		calls = []record.Call{}
	}
	return seen(o, Calls, calls, observed, whole, why, sorted(sources)...)
}

// callsGap says why a turn's calls are not whole, "" when they are: every try of it
// printed a calls list, or the trace is whole.
func (o *Observations) callsGap(t turn) string {
	if len(t.silent) == 0 && t.hookCalls || o.traced && o.traceWhy == "" {
		return ""
	}
	var why []string
	if t.hookCalls {
		for _, n := range t.silent {
			why = append(why, fmt.Sprintf("turn %d try %d (asked to wait) reported no \"calls\", so calls it may have made are not in the record", t.N, n))
		}
	} else {
		why = append(why, fmt.Sprintf("turn %d reported no \"calls\"", t.N))
	}
	if o.traced {
		why = append(why, "the trace is incomplete: "+o.traceWhy)
	}
	return strings.Join(why, "; ")
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// Usage is the tokens used, each count nil when it was not observed, by the package's
// policy; Why says which count is missing and why.
func (o *Observations) Usage() Seen[record.Usage] {
	var u record.Usage
	var why []string
	source := "execute"
	field := func(name string, get func(*record.Usage) *int64) *int64 {
		if o.only == 0 && o.collectUsage != nil {
			if n := get(o.collectUsage); n != nil {
				source = "collect"
				return n
			}
		}
		var sum int64
		var missing []string
		for _, t := range o.turns {
			n := get(&t.usage)
			if n == nil {
				missing = append(missing, fmt.Sprint(t.N))
				continue
			}
			sum += *n
		}
		switch {
		case len(o.turns) == 0 || len(missing) == len(o.turns) && o.only == 0:
			why = append(why, fmt.Sprintf("no phase reported usage.%s", name))
			return nil
		case len(missing) > 0 && o.only > 0:
			why = append(why, fmt.Sprintf("turn %d reported no usage.%s (from every try, or a whole trace)", o.only, name))
			return nil
		case len(missing) > 0:
			why = append(why, fmt.Sprintf("turn %s reported no usage.%s (from every try, or a whole trace; and collect reported none for the session)", strings.Join(missing, ", "), name))
			return nil
		}
		return &sum
	}
	u.Input = field("input", func(u *record.Usage) *int64 { return u.Input })
	u.Output = field("output", func(u *record.Usage) *int64 { return u.Output })
	observed := u.Input != nil || u.Output != nil
	return seen(o, Usage, u, observed, u.Input != nil && u.Output != nil, strings.Join(why, "; "), source)
}

// same adds to calls the calls of another source (from) that they do not hold: the same
// call by id, else by name and arguments, each call matching one other at most. A match
// keeps the first source's call, and says the other saw it too (Also); an outcome only
// the other reported is kept.
func same(calls, other []record.Call, from string) []record.Call {
	out := slices.Clone(calls)
	used := make([]bool, len(out))
	for _, oc := range other {
		found := false
		for i, c := range out[:len(used)] {
			if used[i] || !identical(c, oc) {
				continue
			}
			used[i], found = true, true
			m := &out[i]
			m.Also = append(slices.Clone(m.Also), from)
			if m.Error == "" {
				m.Error = oc.Error
			}
			if m.Output == nil {
				m.Output = oc.Output
			}
			m.OutcomeKnown = m.OutcomeKnown || oc.OutcomeKnown
			break
		}
		if !found {
			out = append(out, oc)
		}
	}
	return out
}

// identical reports whether two sources' calls are one call: the same id where both give
// one, else the same name and arguments.
func identical(a, b record.Call) bool {
	if a.ID != "" && b.ID != "" {
		return a.ID == b.ID
	}
	return a.Name == b.Name && sameJSON(a.Arguments, b.Arguments)
}

func sameJSON(a, b map[string]any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// usageOf is a try's usage as counts, nil where it reported none.
func usageOf(u *record.Usage) record.Usage {
	if u == nil {
		return record.Usage{}
	}
	return *u
}

// sumUsage sums two counts of tokens; a nil count in either makes the sum's count nil:
// a try or a model call that did not say makes the total unknown.
func sumUsage(a, b record.Usage) record.Usage {
	sum := func(x, y *int64) *int64 {
		if x == nil || y == nil {
			return nil
		}
		n := *x + *y
		return &n
	}
	return record.Usage{Input: sum(a.Input, b.Input), Output: sum(a.Output, b.Output)}
}

// Shown is a usage as the records show it (response.json, verdict.yaml): nil when no
// count was observed, else the counts, each nil that was not.
func Shown(u Seen[record.Usage]) *record.Usage {
	if !u.Observed {
		return nil
	}
	return &u.Value
}

func names(calls []record.Call) string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Name
	}
	return strings.Join(out, ", ")
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
