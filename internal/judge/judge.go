package judge

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/spec"
)

// NoJudgeModel is the reason given to llm_judge criteria while no judge model is configured.
const NoJudgeModel = "no judge model configured"

// Evaluate judges every criterion against the evidence, in order.
func Evaluate(criteria []spec.Criterion, ev *Evidence) []Row {
	rows := make([]Row, 0, len(criteria))
	for i := range criteria {
		rows = append(rows, evaluate(&criteria[i], ev))
	}
	return rows
}

func evaluate(c *spec.Criterion, ev *Evidence) Row {
	r := Row{CriterionID: c.ID, Criterion: c.Statement, Check: c.Check, Subtest: c.Subtest(), Confidence: "High"}
	if r.Criterion == "" {
		r.Criterion = c.Check
	}
	r.Expected = expected(c)
	utv := func(reason, why string) Row {
		r.Status, r.Reason, r.Achieved = UnableToVerify, reason, why
		return r
	}
	needsReply := c.Check != "llm_judge" && spec.KnownCheck(c.Check) &&
		!(c.Check == "json_path" && c.In == "collect")
	if needsReply && !ev.AgentRan {
		return utv(AgentNeverRan, "the agent never replied, so there is nothing to judge")
	}
	switch c.Check {
	case "contains", "not_contains":
		hay, where := text(c, ev)
		i, j := find(hay, c.Text, c.CaseSensitive)
		found := i >= 0
		if found {
			r.Achieved = fmt.Sprintf("%s contains %q", where, c.Text)
			r.Evidence = excerpt(hay, i, j-i)
		} else {
			r.Achieved = fmt.Sprintf("%s does not contain %q", where, c.Text)
			r.Evidence = excerpt(hay, 0, 0)
		}
		r.Status = passIf(found == (c.Check == "contains"))
	case "regex", "not_regex":
		hay, where := text(c, ev)
		loc := regexp.MustCompile(c.Pattern).FindStringIndex(hay)
		if loc != nil {
			r.Achieved = fmt.Sprintf("%s matches /%s/ at %q", where, c.Pattern, hay[loc[0]:loc[1]])
			r.Evidence = excerpt(hay, loc[0], loc[1]-loc[0])
		} else {
			r.Achieved = fmt.Sprintf("%s does not match /%s/", where, c.Pattern)
			r.Evidence = excerpt(hay, 0, 0)
		}
		r.Status = passIf((loc != nil) == (c.Check == "regex"))
	case "equals":
		hay, where := text(c, ev)
		got, want := strings.TrimSpace(hay), strings.TrimSpace(c.Value)
		ok := got == want || (!c.CaseSensitive && strings.EqualFold(got, want))
		r.Achieved = fmt.Sprintf("%s is %q", where, clip(got, 200))
		r.Evidence = excerpt(hay, 0, 0)
		r.Status = passIf(ok)
	case "json_path":
		return jsonPath(c, ev, r)
	case "called", "not_called":
		if !ev.CallsObserved {
			return utv(NotObservable, "no phase reported calls, so calls were not observable (return \"calls\" from execute or collect)")
		}
		matched := matchCalls(ev.Calls, c.Name, c.Arguments)
		n := len(matched)
		r.Evidence = callsQuote(matched, ev.Calls)
		r.Achieved = fmt.Sprintf("%s was called %d time(s) with matching arguments; observed calls: %s", c.Name, n, callNames(ev.Calls))
		if c.Check == "not_called" {
			r.Status = passIf(n == 0)
			break
		}
		ok := n >= 1
		switch {
		case c.Times != nil:
			ok = n == *c.Times
		case c.Min != nil || c.Max != nil:
			ok = (c.Min == nil || n >= *c.Min) && (c.Max == nil || n <= *c.Max)
		}
		r.Status = passIf(ok)
	case "call_sequence":
		if !ev.CallsObserved {
			return utv(NotObservable, "no phase reported calls, so the call sequence was not observable")
		}
		names := make([]string, len(ev.Calls))
		for i, cl := range ev.Calls {
			names[i] = cl.Name
		}
		r.Achieved = "observed calls: " + callNames(ev.Calls)
		r.Evidence = callsQuote(ev.Calls, nil)
		r.Status = passIf(sequenceMatches(c.Mode, c.Names, names))
	case "usage":
		if ev.Usage == nil {
			return utv(NotObservable, "no phase reported token usage")
		}
		u := ev.Usage
		ok := (c.InputMax == nil || u.Input <= int64(*c.InputMax)) &&
			(c.OutputMax == nil || u.Output <= int64(*c.OutputMax)) &&
			(c.TotalMax == nil || u.Input+u.Output <= int64(*c.TotalMax))
		r.Achieved = fmt.Sprintf("used %d input + %d output = %d tokens", u.Input, u.Output, u.Input+u.Output)
		r.Evidence = fmt.Sprintf("usage: {input_tokens: %d, output_tokens: %d}", u.Input, u.Output)
		r.Status = passIf(ok)
	case "latency":
		var worst, total int64
		var parts []string
		for i, t := range ev.Turns {
			worst = max(worst, t.LatencyMs)
			total += t.LatencyMs
			parts = append(parts, fmt.Sprintf("turn %d: %d ms", i+1, t.LatencyMs))
		}
		got := worst
		if c.Per == "scenario" {
			got = total
			r.Achieved = fmt.Sprintf("execute took %d ms in all", total)
		} else {
			r.Achieved = fmt.Sprintf("the slowest turn took %d ms", worst)
		}
		r.Evidence = strings.Join(parts, ", ")
		r.Status = passIf(got <= int64(*c.MaxMs))
	case "turns":
		r.Achieved = fmt.Sprintf("the scenario took %d turn(s)", len(ev.Turns))
		r.Evidence = fmt.Sprintf("%d execute call(s) recorded", len(ev.Turns))
		r.Status = passIf(len(ev.Turns) <= *c.Max)
	case "llm_judge":
		r.Confidence = "Low"
		return utv(Undecidable, NoJudgeModel)
	default:
		r.Confidence = "Low"
		return utv(Undecidable, fmt.Sprintf("check %q is not supported by this judge", c.Check))
	}
	return r
}

func passIf(ok bool) Status {
	if ok {
		return Pass
	}
	return Fail
}

func expected(c *spec.Criterion) string {
	where := "the reply"
	if c.In == "transcript" {
		where = "the transcript"
	}
	cs := ""
	if c.CaseSensitive {
		cs = " (case-sensitive)"
	}
	switch c.Check {
	case "contains":
		return fmt.Sprintf("%s contains %q%s", where, c.Text, cs)
	case "not_contains":
		return fmt.Sprintf("%s does not contain %q%s", where, c.Text, cs)
	case "regex":
		return fmt.Sprintf("%s matches /%s/", where, c.Pattern)
	case "not_regex":
		return fmt.Sprintf("%s does not match /%s/", where, c.Pattern)
	case "equals":
		return fmt.Sprintf("%s equals %q%s", where, c.Value, cs)
	case "json_path":
		src := "the reply"
		if c.In == "collect" {
			src = "collect's data"
		}
		switch {
		case c.HasJSONEquals:
			return fmt.Sprintf("%s at %s equals %s", src, c.Path, jsonText(c.JSONEquals))
		case c.Pattern != "":
			return fmt.Sprintf("%s at %s matches /%s/", src, c.Path, c.Pattern)
		case c.Exists != nil && !*c.Exists:
			return fmt.Sprintf("%s has nothing at %s", src, c.Path)
		}
		return fmt.Sprintf("%s has a value at %s", src, c.Path)
	case "called":
		s := c.Name + " is called"
		if len(c.Arguments) > 0 {
			s += " with arguments " + jsonText(c.Arguments)
		}
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
		return s
	case "not_called":
		if len(c.Arguments) > 0 {
			return fmt.Sprintf("%s is never called with arguments %s", c.Name, jsonText(c.Arguments))
		}
		return c.Name + " is never called"
	case "call_sequence":
		return fmt.Sprintf("calls [%s] (%s)", strings.Join(c.Names, ", "), c.Mode)
	case "usage":
		var parts []string
		if c.InputMax != nil {
			parts = append(parts, fmt.Sprintf("input <= %d", *c.InputMax))
		}
		if c.OutputMax != nil {
			parts = append(parts, fmt.Sprintf("output <= %d", *c.OutputMax))
		}
		if c.TotalMax != nil {
			parts = append(parts, fmt.Sprintf("total <= %d", *c.TotalMax))
		}
		return "tokens: " + strings.Join(parts, ", ")
	case "latency":
		if c.Per == "scenario" {
			return fmt.Sprintf("execute takes at most %d ms in all", *c.MaxMs)
		}
		return fmt.Sprintf("every turn takes at most %d ms", *c.MaxMs)
	case "turns":
		return fmt.Sprintf("at most %d turn(s)", *c.Max)
	}
	return c.Statement
}

func text(c *spec.Criterion, ev *Evidence) (string, string) {
	if c.In == "transcript" {
		return ev.Transcript(), "the transcript"
	}
	return ev.Output(), "the reply"
}

// find returns where needle first occurs in hay, as byte offsets of hay itself, or -1.
// Case-insensitive matching folds case the way strings.EqualFold does, on the original
// text: lowercasing first would shift every offset after a rune whose lowercase has another
// length (Ⱥ grows, the Kelvin sign shrinks).
func find(hay, needle string, caseSensitive bool) (start, end int) {
	if caseSensitive {
		i := strings.Index(hay, needle)
		if i < 0 {
			return -1, -1
		}
		return i, i + len(needle)
	}
	re, err := regexp.Compile("(?i)" + regexp.QuoteMeta(needle))
	if err != nil { // needle is not valid UTF-8: there is no case to fold
		return find(hay, needle, true)
	}
	loc := re.FindStringIndex(hay)
	if loc == nil {
		return -1, -1
	}
	return loc[0], loc[1]
}

// excerpt quotes hay around [at, at+n): the evidence a reader can find in the record.
func excerpt(hay string, at, n int) string {
	const around = 80
	if hay == "" {
		return `""`
	}
	at, n = min(max(at, 0), len(hay)), max(n, 0)
	start, end := max(0, at-around), min(len(hay), at+n+around)
	if n == 0 {
		start, end = 0, min(len(hay), 240)
	}
	for start > 0 && !utf8Start(hay[start]) {
		start--
	}
	for end < len(hay) && !utf8Start(hay[end]) {
		end++
	}
	q := fmt.Sprintf("%q", hay[start:end])
	if start > 0 {
		q = "..." + q
	}
	if end < len(hay) {
		q += "..."
	}
	return q
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func jsonPath(c *spec.Criterion, ev *Evidence, r Row) Row {
	path, _ := spec.ParseJSONPath(c.Path)
	var doc any
	if c.In == "collect" {
		if ev.Collect == nil {
			r.Status, r.Reason = UnableToVerify, NotObservable
			r.Achieved = "collect returned no data"
			return r
		}
		doc = ev.Collect
	} else {
		if err := json.Unmarshal([]byte(ev.Output()), &doc); err != nil {
			r.Status = Fail
			r.Achieved = "the reply is not JSON"
			r.Evidence = excerpt(ev.Output(), 0, 0)
			return r
		}
		r.Evidence = excerpt(ev.Output(), 0, 0)
	}
	v, found := path.Lookup(doc)
	switch {
	case c.Exists != nil:
		r.Status = passIf(found == *c.Exists)
	case !found:
		r.Status = Fail
	case c.HasJSONEquals:
		r.Status = passIf(jsonEqual(v, c.JSONEquals))
	default:
		s, isStr := v.(string)
		if !isStr {
			s = jsonText(v)
		}
		r.Status = passIf(regexp.MustCompile(c.Pattern).MatchString(s))
	}
	if found {
		r.Achieved = fmt.Sprintf("%s is %s", c.Path, clip(jsonText(v), 200))
		if c.In == "collect" {
			r.Evidence = fmt.Sprintf("collect data %s: %s", c.Path, clip(jsonText(v), 300))
		}
	} else {
		if c.In == "collect" {
			r.Evidence = "collect data: " + clip(jsonText(ev.Collect), 300)
		}
		r.Achieved = fmt.Sprintf("nothing at %s", c.Path)
	}
	return r
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// jsonEqual compares two decoded values as JSON, so that 5, 5.0 and json.Number("5") agree.
func jsonEqual(a, b any) bool {
	var na, nb any
	if json.Unmarshal([]byte(jsonText(a)), &na) != nil || json.Unmarshal([]byte(jsonText(b)), &nb) != nil {
		return false
	}
	return jsonText(na) == jsonText(nb)
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

func matchCalls(calls []hook.Call, name string, args map[string]any) []hook.Call {
	var out []hook.Call
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

func callNames(calls []hook.Call) string {
	if len(calls) == 0 {
		return "none"
	}
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func callsQuote(primary, fallback []hook.Call) string {
	list := primary
	if len(list) == 0 {
		list = fallback
	}
	if len(list) == 0 {
		return "calls: []"
	}
	type shown struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments,omitempty"`
	}
	out := make([]shown, len(list))
	for i, c := range list {
		out[i] = shown{c.Name, c.Arguments}
	}
	return clip(jsonText(out), 400)
}

// sequenceMatches compares observed call names with want: strict (the same sequence),
// unordered (the same calls in any order), subset (every observed call is one of want),
// superset (every wanted call was observed, among others).
func sequenceMatches(mode string, want, got []string) bool {
	switch mode {
	case "unordered":
		a, b := append([]string(nil), want...), append([]string(nil), got...)
		sort.Strings(a)
		sort.Strings(b)
		return strings.Join(a, "\x00") == strings.Join(b, "\x00")
	case "subset":
		return multisetWithin(got, want)
	case "superset":
		return multisetWithin(want, got)
	}
	return strings.Join(want, "\x00") == strings.Join(got, "\x00") && len(want) == len(got)
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

// Forbidden returns every forbidden text that appears in an agent turn (case-insensitive).
func Forbidden(forbidden []string, ev *Evidence) []ForbiddenHit {
	var hits []ForbiddenHit
	for _, f := range forbidden {
		if strings.TrimSpace(f) == "" {
			continue
		}
		for i, t := range ev.Turns {
			if at, end := find(t.Output, f, false); at >= 0 {
				hits = append(hits, ForbiddenHit{Text: f, Turn: i + 1, Quote: excerpt(t.Output, at, end-at)})
			}
		}
	}
	return hits
}
