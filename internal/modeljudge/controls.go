package modeljudge

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
)

// A control is a criterion whose answer the record itself gives: a fact of the record
// stated as it is or with one thing changed (a number, a name, a tool), either way round
// (it holds, it does not). Each request carries two or three among its real criteria (and
// the negation control beside them, where a reply refuses an action),
// worded as criteria are and shuffled under ids that do not tell them apart; a judge that
// answers a control wrong decides nothing in that request.
type control struct {
	statement string
	want      record.Status
}

// controlsFor builds the case's controls from the facts of its record that the prompt
// shows (as the judge reads it, redacted, within budget bytes), or says why there are none.
func controlsFor(c Case, redact func(string) string, seed uint64, budget int) ([]control, string) {
	all := recordFacts(c, redact)
	if len(all) == 0 {
		return nil, "the record holds nothing the agent or its tools produced (no reply, no observed calls, no collect data, no evidence file)"
	}
	facts := shown(all, c, redact, budget)
	if len(facts) == 0 {
		return nil, "what the record holds of the agent and its tools was left out of the prompt to stay within the evidence budget"
	}
	rnd := rand.New(rand.NewPCG(seed, seed>>1|1))
	k := 2 + rnd.IntN(2)
	tails := tailsOf(c.Criteria)
	replies := 0
	for _, t := range c.Evidence.Turns().Value {
		if strings.TrimSpace(t.Output) != "" {
			replies++
		}
	}
	w := worldOf(c, all, redact)
	words := wordsOf(c.Criteria)
	var out []control
	seen := map[string]bool{}
	// The negation control: where a reply refuses or negates an action, one control claims
	// the agent agreed to it, which the record shows is false (negation.go).
	var traps, rest []fact
	for _, f := range facts {
		if f.kind == refusedAct {
			traps = append(traps, f)
		} else {
			rest = append(rest, f)
		}
	}
	if len(traps) > 0 {
		f := traps[rnd.IntN(len(traps))]
		forms := templates[refusedAct].pos
		s := say(forms[rnd.IntN(len(forms))], f, f.value)
		if len(tails) > 0 && rnd.IntN(len(c.Criteria)) < len(tails) {
			s += " " + tails[rnd.IntN(len(tails))]
		}
		seen[s] = true
		out = append(out, control{statement: s, want: record.Fail}) // beside the others
	}
	if len(rest) == 0 {
		return out, ""
	}
	first := len(out)
	for i, f := range pick(rest, k, topics(c.Criteria), words, rnd) {
		var v string
		var negate bool
		want := []record.Status{record.Fail, record.Pass, []record.Status{record.Pass, record.Fail}[rnd.IntN(2)]}[i]
		if i == 0 {
			// The first is one that a reader of the words alone gets wrong: a value the
			// record holds elsewhere, claimed here; where there is none, the record's own
			// value denied.
			v = w.misplaced(f, rnd)
			if v == "" {
				v, negate = f.value, true
			}
		} else {
			v, negate = f.value, rnd.IntN(5) < 1 // one in five denies, as criteria deny less than they claim
			if (want == record.Pass) == negate { // the claim must not hold as stated: change the value
				if changed, ok := w.change(f, rnd); ok {
					v = changed
				} else {
					negate = !negate
				}
			}
		}
		forms := templates[f.kind]
		if f.kind == inReply && replies > 1 {
			forms = turnTemplates
		}
		list := forms.pos
		if negate {
			list = forms.neg
		}
		s := say(list[rnd.IntN(len(list))], f, v)
		if len(tails) > 0 && rnd.IntN(len(c.Criteria)) < len(tails) {
			s += " " + tails[rnd.IntN(len(tails))]
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, control{statement: s, want: want})
	}
	// The last of them gives way to a twin of one of the request's own criteria, where one
	// can be made (twin.go): it reads as the criteria do because it is one of them.
	if s, ok := twinOf(c, redact, budget, rnd); ok && len(out) > first && !seen[s] {
		out[len(out)-1] = control{statement: s, want: record.Fail}
	}
	return out, ""
}

// named counts the words of f's key and tool (as KeyWords says them) that the criteria use.
func named(f fact, words map[string]bool) int {
	n := 0
	for _, w := range strings.Fields(KeyWords(f.key) + " " + KeyWords(f.tool)) {
		if words[w] {
			n++
		}
	}
	return n
}

// wordsOf are the lowercase words of the criteria's statements.
func wordsOf(criteria []Criterion) map[string]bool {
	out := map[string]bool{}
	for _, cr := range criteria {
		for _, w := range wordRE().FindAllString(strings.ToLower(cr.Statement), -1) {
			out[w] = true
		}
	}
	return out
}

// pick chooses k facts, of as many kinds as the record has, with repeats only when it has
// fewer than k; the kinds the request's criteria speak of (prefer) come first, and of a
// kind the facts whose key or tool the criteria's words name.
func pick(facts []fact, k int, prefer map[factKind]int, words map[string]bool, rnd *rand.Rand) []fact {
	byKind := map[factKind][]fact{}
	var kinds []factKind
	for _, f := range facts {
		if byKind[f.kind] == nil {
			kinds = append(kinds, f.kind)
		}
		byKind[f.kind] = append(byKind[f.kind], f)
	}
	rnd.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	for _, kd := range kinds {
		l := byKind[kd]
		rnd.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
		// Of a kind, the facts whose key or tool the criteria name first: a control about
		// the balance beside a criterion about the balance.
		sort.SliceStable(l, func(i, j int) bool { return named(l[i], words) > named(l[j], words) })
	}
	// One of each kind, then a second of each, ...: the kinds the criteria speak of first,
	// until their facts run out, then the others.
	var order []fact
	for _, group := range [][]factKind{preferred(kinds, prefer, true), preferred(kinds, prefer, false)} {
		for i := 0; len(order) < min(len(facts), k); i++ {
			n := len(order)
			for _, kd := range group {
				if i < len(byKind[kd]) {
					order = append(order, byKind[kd][i])
				}
			}
			if len(order) == n {
				break
			}
		}
	}
	out := make([]fact, k)
	for i := range out {
		out[i] = order[i%len(order)]
	}
	return out
}

// preferred are the kinds the criteria speak of (or, with in false, the others), in
// kinds' order.
func preferred(kinds []factKind, prefer map[factKind]int, in bool) []factKind {
	var out []factKind
	for _, k := range kinds {
		if prefer[k] > 0 == in {
			out = append(out, k)
		}
	}
	return out
}

// topics counts the criteria that speak of each kind of fact: of the agent's replies, of
// its tool calls, of what was collected or captured. A control is made first of what the
// criteria speak of, so that it tests the reading they need and reads as they do.
func topics(criteria []Criterion) map[factKind]int {
	out := map[factKind]int{}
	for _, cr := range criteria {
		first, rest, _ := strings.Cut(cr.Statement, ". ")
		for _, t := range topicWords {
			// The first sentence says what the criterion is about; the rest how to read
			// its sources (Rook's "Inspect the recorded customer-facing output"), where a
			// tool is named only to be excused ("a denied tool attempt is permitted").
			if t.re().MatchString(first) || t.ofSources && t.re().MatchString(rest) {
				for _, k := range t.kinds {
					out[k]++
				}
			}
		}
	}
	return out
}

var topicWords = []struct {
	re        func() *regexp.Regexp
	kinds     []factKind
	ofSources bool
}{
	{check.Pattern(`(?i)\b(repl(y|ies)|says?|tells?|mentions?|names?|response|answers?|explains?|confirms?|output|words?|customer-facing)\b`), []factKind{inReply}, true},
	{check.Pattern(`(?i)\b(tools?|calls?|called|invok\w*|looks?\b.*\bup|lookups?)\b`), []factKind{called, argument, result, noCalls}, false},
	{check.Pattern(`(?i)\b(collect\w*|evidence|effects?|receipts?|captured|json|exists?)\b`), []factKind{collected, inFile, inFileText}, true},
}

// tailsOf are the sentences the criteria add after their first (Rook's criteria say how to
// read the evidence: "Inspect the recorded customer-facing output; ..."): a control borrows
// one as often as the request's criteria carry one, so that it reads as they do.
func tailsOf(criteria []Criterion) []string {
	var out []string
	for _, cr := range criteria {
		s := strings.Join(strings.Fields(cr.Statement), " ")
		if i := strings.Index(s, ". "); i > 0 && i+2 < len(s) {
			out = append(out, s[i+2:])
		}
	}
	return out
}

// world is what a changed value is checked against: it must not hold anywhere it is
// claimed.
type world struct {
	facts          []fact
	replies, files []string // normalised
}

func worldOf(c Case, facts []fact, redact func(string) string) world {
	w := world{facts: facts}
	for _, t := range c.Evidence.Turns().Value {
		w.replies = append(w.replies, normalise(redact(t.Output)))
	}
	for _, f := range c.Files {
		w.files = append(w.files, normalise(redact(f.Text)))
	}
	return w
}

// holds says whether the record shows f with value v.
func (w world) holds(f fact, v string) bool {
	n := normalise(v)
	if f.kind == inReply || f.kind == inFileText {
		texts := w.replies
		if f.kind == inFileText {
			texts = w.files
		}
		for _, t := range texts {
			if len(locate(t, n)) > 0 {
				return true
			}
		}
		return false
	}
	for _, g := range w.facts {
		if g.kind == f.kind && g.tool == f.tool && g.key == f.key && normalise(g.value) == n ||
			f.kind == called && g.kind == called && normalise(g.tool) == n {
			return true
		}
	}
	return false
}

// change turns f's value into one that reads as well and does not hold: another of the
// record's values, or f's own changed.
func (w world) change(f fact, rnd *rand.Rand) (string, bool) {
	if v := w.misplaced(f, rnd); v != "" {
		return v, true
	}
	return w.altered(f, rnd)
}

// misplaced is another of the record's values that reads as well in a claim about f (a
// value of the same key; for a text, a number or a name as texts have them) and does not
// hold there: it is in the record, just not where the claim puts it, which only a reader
// of the sources can tell. It is "" when the record has none.
func (w world) misplaced(f fact, rnd *rand.Rand) string {
	if f.class != number && f.class != name {
		return ""
	}
	var candidates []string
	for _, g := range w.facts {
		fits := g.key == f.key
		if f.key == "" {
			fits = g.class == number || nameRE().MatchString(g.value)
		}
		if fits && g.class == f.class && g.value != f.value && len(g.value) <= 2*len(f.value)+8 {
			candidates = append(candidates, g.value)
		}
	}
	rnd.Shuffle(len(candidates), func(i, j int) { candidates[i], candidates[j] = candidates[j], candidates[i] })
	for _, v := range candidates {
		if !w.holds(f, v) {
			return v
		}
	}
	return ""
}

// altered is f's value changed in itself: a digit of a number, another verb for a tool.
func (w world) altered(f fact, rnd *rand.Rand) (string, bool) {
	var candidates []string
	switch f.class {
	case number:
		candidates = changedDigits(f.value, rnd)
	case toolName:
		candidates = otherVerbs(f.value, rnd)
	}
	for _, v := range candidates {
		if !w.holds(f, v) {
			return v, true
		}
	}
	return "", false
}

var digitRE = check.Pattern(`\d`)

// changedDigits are f's value with one digit changed: the first of a plain number (200 to
// 300, a change a reader sees), the last of an identifier (ACC-1001 to ACC-1004).
func changedDigits(v string, rnd *rand.Rand) []string {
	at := digitRE().FindAllStringIndex(v, -1)
	if len(at) == 0 {
		return nil
	}
	pos := at[0][0]
	if strings.IndexFunc(v[:pos], func(r rune) bool { return r >= 'A' && r <= 'z' }) >= 0 {
		pos = at[len(at)-1][0]
	}
	var out []string
	for range 4 {
		d := int(v[pos]-'0') + 1 + rnd.IntN(8)
		nd := byte('0' + d%10)
		if nd == '0' && pos == at[0][0] && len(at) > 1 {
			nd = '1' + byte(rnd.IntN(8))
		}
		if nd != v[pos] {
			out = append(out, v[:pos]+string(nd)+v[pos+1:])
		}
	}
	return out
}

var verbs = []string{"get", "list", "create", "update", "delete", "cancel", "send", "issue", "check", "lookup", "transfer", "refund"}

// otherVerbs are tool names with another verb: get_account to delete_account.
func otherVerbs(tool string, rnd *rand.Rand) []string {
	rest := tool
	if i := strings.IndexAny(tool, "_."); i > 0 {
		rest = tool[i+1:]
	}
	var out []string
	for _, i := range rnd.Perm(len(verbs)) {
		if n := verbs[i] + "_" + rest; n != tool && verbs[i] != rest { // not transfer_transfer
			out = append(out, n)
		}
	}
	return out
}

// plan is one request's criteria as the judge sees them: the case's and the controls,
// shuffled, under ids Q1, Q2, ... that do not tell them apart.
type plan struct {
	asked    []Criterion        // in prompt order, under the request's ids
	real     map[string]string  // request id -> the case's criterion id
	controls map[string]control // request id -> control
	// none says why the request carries no control.
	none string
}

// planFor shuffles c's criteria and its controls under request ids; the same record gives
// the same plan, so that an unchanged prompt is answered from the cache. Controls are built
// only from what the prompt shows of the record within budget bytes.
func planFor(c Case, redact func(string) string, budget int) plan {
	h := fnv.New64a()
	h.Write([]byte(c.ScenarioID))
	for _, cr := range c.Criteria {
		h.Write([]byte{0})
		h.Write([]byte(cr.Statement))
	}
	for _, t := range c.Evidence.Turns().Value {
		h.Write([]byte{0})
		h.Write([]byte(t.Output))
	}
	seed := h.Sum64()
	type item struct {
		statement, real string
		ctl             *control
	}
	var items []item
	for _, cr := range c.Criteria {
		items = append(items, item{statement: cr.Statement, real: cr.ID})
	}
	controls, none := controlsFor(c, redact, seed, budget)
	for _, ctl := range controls {
		items = append(items, item{statement: ctl.statement, ctl: &ctl})
	}
	rand.New(rand.NewPCG(seed, 7)).Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	p := plan{real: map[string]string{}, controls: map[string]control{}, none: none}
	for i, it := range items {
		id := fmt.Sprintf("Q%d", i+1)
		label := it.real + " (asked as " + id + ")"
		if it.ctl != nil {
			label = "a control (" + id + ")"
		}
		p.asked = append(p.asked, Criterion{ID: id, Statement: it.statement, label: label})
		if it.ctl != nil {
			p.controls[id] = *it.ctl
		} else {
			p.real[id] = it.real
		}
	}
	return p
}

// failedControl says how the judge failed a control in results, or "" when it answered
// every control as the record does.
func (p plan) failedControl(results map[string]Result) string {
	ids := make([]string, 0, len(p.controls))
	for id := range p.controls {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		ctl := p.controls[id]
		if got := results[id]; got.Status != ctl.want {
			return fmt.Sprintf("the judge failed a control: it answered %s (%s) to %q, which the record shows is %s",
				got.Status, got.Achieved, ctl.statement, ctl.want)
		}
	}
	return ""
}
