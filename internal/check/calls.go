package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// The checks on the tool calls the hooks reported. Without a reported calls list they are
// Unable to Verify (not_observable), never a pass.
func init() {
	register(&Kind{Name: "called", Turn: true, Params: []string{"name", "arguments", "times", "min", "max", "failed"}, Parse: func(p Params) Check {
		c := &Called{Name: callName(p), Arguments: arguments(p), Times: p.Int("times"), Min: p.Int("min"), Max: p.Int("max")}
		if p.Has("failed") {
			f := p.Bool("failed")
			c.Failed = &f
		}
		if c.Times != nil && (c.Min != nil || c.Max != nil) {
			p.Errorf("", "params.times cannot be combined with min or max")
		}
		return c
	}})
	register(&Kind{Name: "not_called", Turn: true, Params: []string{"name", "arguments"}, Parse: func(p Params) Check {
		return &Called{Name: callName(p), Arguments: arguments(p), Never: true}
	}})
	register(&Kind{Name: "call_sequence", Turn: true, Params: []string{"names", "mode"}, Parse: func(p Params) Check {
		c := &CallSequence{Mode: "strict"}
		if p.Require("names") {
			c.Names = p.Strings("names")
		}
		if p.Has("mode") {
			c.Mode = p.String("mode")
			oneOf(p, "mode", c.Mode, "strict", "unordered", "subset", "superset")
		}
		return c
	}})
}

func callName(p Params) string {
	if p.Require("name") {
		return p.String("name")
	}
	return ""
}

func arguments(p Params) map[string]any {
	if !p.Has("arguments") {
		return nil
	}
	v := p.Value("arguments")
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		p.Errorf("arguments", "must be a mapping")
	}
	return m
}

// Called passes when the named tool was called with matching arguments (a subset match),
// Times times or within Min..Max (at least once by default); with Never, when it was not.
type Called struct {
	Name      string
	Arguments map[string]any
	Times     *int
	Min, Max  *int
	Never     bool
	// Failed, when set, counts only the calls that failed (true) or did not (false), as
	// their source said: a tool span's error status, a hook's "error".
	Failed *bool
}

func (c *Called) Detail() string { return c.Name }

func (c *Called) Observes() Observations { return ObservesReply | ObservesCalls }

func (c *Called) Expected() string {
	args := ""
	if len(c.Arguments) > 0 {
		args = " with arguments " + jsonText(c.Arguments)
	}
	if c.Never {
		return fmt.Sprintf("%s is never called%s", c.Name, args)
	}
	s := c.Name + " is called" + args
	switch {
	case c.Times != nil:
		s += fmt.Sprintf(" exactly %d time(s)", *c.Times)
	case c.Min != nil && c.Max != nil:
		s += fmt.Sprintf(" %d to %d times", *c.Min, *c.Max)
	case c.Min != nil:
		s += fmt.Sprintf(" at least %d time(s)", *c.Min)
	case c.Max != nil:
		s += fmt.Sprintf(" at most %d time(s)", *c.Max)
	}
	if c.Failed != nil && *c.Failed {
		s += ", and the call failed"
	} else if c.Failed != nil {
		s += ", and the call succeeded"
	}
	return s
}

func (c *Called) Judge(ev *observe.Observations) Result {
	seen := ev.Calls()
	if !seen.Observed {
		return unable(record.NotObservable, seen.Gap())
	}
	calls := seen.Value
	matched := matchCalls(calls, c.Name, c.Arguments)
	var unknown []record.Call
	if c.Failed != nil {
		// A call whose source did not say how it ended is neither failed nor not.
		unknown = slices.DeleteFunc(slices.Clone(matched), func(m record.Call) bool { return m.OutcomeKnown })
		matched = slices.DeleteFunc(matched, func(m record.Call) bool { return !m.OutcomeKnown || (m.Error != "") != *c.Failed })
	}
	n := len(matched)
	r := Result{Evidence: callsQuote(matched, calls),
		Achieved: fmt.Sprintf("%s was called %d time(s) with matching arguments; observed calls: %s", c.Name, n, callNames(calls))}
	ok := n >= 1
	switch {
	case c.Never:
		ok = n == 0
	case c.Times != nil:
		ok = n == *c.Times
	case c.Min != nil || c.Max != nil:
		ok = (c.Min == nil || n >= *c.Min) && (c.Max == nil || n <= *c.Max)
	}
	r.Status = passIf(ok)
	if len(unknown) > 0 && !c.decidedByAFloor(n) {
		return unable(record.NotObservable, fmt.Sprintf("%d call(s) of %s reported no outcome (no \"error\" or \"output\", no span status or result), so whether they failed was not observed",
			len(unknown), c.Name))
	}
	if why := seen.Gap(); why != "" && !c.decidedByAFloor(n) {
		return unable(record.NotObservable, why+fmt.Sprintf("; it shows %s called %d time(s), and more calls could have been made", c.Name, n))
	}
	return r
}

// decidedByAFloor reports whether n calls seen in an incomplete record decide the
// criterion whatever more calls there were: a call that must never happen happened, or
// one that must happen (at least min times) did, or more than the most allowed did.
func (c *Called) decidedByAFloor(n int) bool {
	switch {
	case c.Never:
		return n > 0
	case c.Times != nil:
		return n > *c.Times
	case c.Max != nil && n > *c.Max:
		return true
	case c.Max != nil:
		return false
	}
	return n >= max(1, deref(c.Min))
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// CallSequence passes when the observed call names meet Names in Mode: strict (the same
// sequence), unordered (the same calls in any order), subset (every observed call is one of
// Names), superset (every one of Names was observed, among others).
type CallSequence struct {
	Names []string
	Mode  string
}

func (c *CallSequence) Detail() string { return "" }

func (c *CallSequence) Observes() Observations { return ObservesReply | ObservesCalls }

func (c *CallSequence) Expected() string {
	return fmt.Sprintf("calls [%s] (%s)", strings.Join(c.Names, ", "), c.Mode)
}

func (c *CallSequence) Judge(ev *observe.Observations) Result {
	seen := ev.Calls()
	if !seen.Observed {
		return unable(record.NotObservable, seen.Gap())
	}
	if why := seen.Gap(); why != "" {
		return unable(record.NotObservable, why+"; a sequence needs every call")
	}
	calls := seen.Value
	names := make([]string, len(calls))
	for i, cl := range calls {
		names[i] = cl.Name
	}
	return Result{Status: passIf(sequenceMatches(c.Mode, c.Names, names)),
		Achieved: "observed calls: " + callNames(calls), Evidence: callsQuote(calls, nil)}
}

// subset reports whether every key of want is in got with an equal value; nested objects
// match as subsets too.
func subset(want, got any) bool {
	wm, wok := want.(map[string]any)
	gm, gok := got.(map[string]any)
	if wok && gok {
		for k, wv := range wm {
			gv, ok := gm[k]
			if !ok || !subset(wv, gv) {
				return false
			}
		}
		return true
	}
	return jsonEqual(want, got)
}

func matchCalls(calls []record.Call, name string, args map[string]any) []record.Call {
	var out []record.Call
	for _, c := range calls {
		if c.Name != name {
			continue
		}
		if len(args) > 0 && !subset(args, c.Arguments) {
			continue
		}
		out = append(out, c)
	}
	return out
}

func callNames(calls []record.Call) string {
	if len(calls) == 0 {
		return "none"
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// callsQuote is a row's evidence of calls: primary, else fallback, each with its
// arguments and where it was seen ("issue_refund {...}, from the agent's trace, turn 1").
func callsQuote(primary, fallback []record.Call) string {
	list := primary
	if len(list) == 0 {
		list = fallback
	}
	if len(list) == 0 {
		return "calls: []"
	}
	lines := make([]string, len(list))
	for i, c := range list {
		lines[i] = c.Name
		if len(c.Arguments) > 0 {
			lines[i] += " " + jsonText(c.Arguments)
		}
		lines[i] += ", " + c.Source()
	}
	return Clip(strings.Join(lines, "; "), 400)
}

func sequenceMatches(mode string, want, got []string) bool {
	switch mode {
	case "unordered":
		a, b := slices.Clone(want), slices.Clone(got)
		slices.Sort(a)
		slices.Sort(b)
		return slices.Equal(a, b)
	case "subset":
		return multisetWithin(got, want)
	case "superset":
		return multisetWithin(want, got)
	}
	return slices.Equal(want, got)
}

// multisetWithin reports whether every element of small occurs in big, as often.
func multisetWithin(small, big []string) bool {
	count := map[string]int{}
	for _, s := range big {
		count[s]++
	}
	for _, s := range small {
		if count[s] == 0 {
			return false
		}
		count[s]--
	}
	return true
}

// Statement is the statement a criterion of Rook's calls shorthand reads as, which has
// none of its own: "The agent calls lookup." for a called check; "" for other checks.
func Statement(ch Check) string {
	c, ok := ch.(*Called)
	if !ok {
		return ""
	}
	if c.Never {
		return fmt.Sprintf("The agent does not call %s.", c.Name)
	}
	s := "The agent calls " + c.Name
	if len(c.Arguments) > 0 {
		s += " with the given arguments"
	}
	if c.Times != nil {
		s += fmt.Sprintf(" exactly %d time(s)", *c.Times)
	}
	return s + "."
}

// ToolNames are the tools a check names: a called, not_called or call_sequence check's;
// none for the others.
func ToolNames(c Check) []string {
	switch x := c.(type) {
	case *Called:
		return []string{x.Name}
	case *CallSequence:
		return slices.Clone(x.Names)
	}
	return nil
}
