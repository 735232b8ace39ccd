package modeljudge

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"

	"github.com/rookgo/rookgo/internal/record"
)

// A control is a criterion whose answer the record itself gives: a phrase the agent's reply
// holds, or the same phrase with one word changed. Each request carries one or two among
// its real criteria, under ids that do not tell them apart; a judge that answers a control
// wrong decides nothing in that request.
type control struct {
	statement string
	want      record.Status
}

// controlTemplates word a control; the seed picks one.
var controlTemplates = []string{
	"The agent's reply in turn %d contains the phrase %q.",
	"In turn %d, the agent tells the user %q.",
	"The agent says %q in turn %d.",
}

// decoys replace a word of a true phrase to make a false one; the first not in the record
// is used.
var decoys = []string{"tomorrow", "cancelled", "seventeen", "passport", "lighthouse", "purple", "Wednesday", "orchard"}

// controlsFor builds the case's controls from its last reply (as the judge reads it,
// redacted): a true phrase and a false one when the reply is long enough, none otherwise.
func controlsFor(c Case, redact func(string) string, seed uint64) []control {
	turn, reply := 0, ""
	for _, t := range c.Evidence.Turns() {
		if strings.TrimSpace(t.Output) != "" {
			turn, reply = t.N, redact(t.Output)
		}
	}
	words := strings.Fields(reply)
	if len(words) < 6 {
		return nil
	}
	rnd := rand.New(rand.NewPCG(seed, seed>>1|1))
	var phrase []string
	for range 8 { // a window of 4 to 6 words, at least 16 bytes, with no quote to escape
		k := min(4+rnd.IntN(3), len(words))
		start := rnd.IntN(len(words) - k + 1)
		w := words[start : start+k]
		if s := strings.Join(w, " "); len(s) >= 16 && !strings.ContainsAny(s, "\"\\`") {
			phrase = w
			break
		}
	}
	if phrase == nil {
		return nil
	}
	whole := normalise(reply)
	longest := -1
	for i, w := range phrase {
		if letters(w) >= 4 && (longest < 0 || letters(w) > letters(phrase[longest])) {
			longest = i
		}
	}
	word := func(w string) string {
		for _, d := range decoys {
			if !strings.Contains(whole, strings.ToLower(d)) && !strings.EqualFold(d, w) {
				return d
			}
		}
		return ""
	}
	out := []control{{statement: worded(rnd, turn, strings.Join(phrase, " ")), want: record.Pass}}
	if longest >= 0 {
		if d := word(phrase[longest]); d != "" {
			changed := append([]string(nil), phrase...)
			changed[longest] = d
			out = append(out, control{statement: worded(rnd, turn, strings.Join(changed, " ")), want: record.Fail})
		}
	}
	rnd.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func worded(rnd *rand.Rand, turn int, phrase string) string {
	t := controlTemplates[rnd.IntN(len(controlTemplates))]
	if strings.HasPrefix(t, "The agent says") {
		return fmt.Sprintf(t, phrase, turn)
	}
	return fmt.Sprintf(t, turn, phrase)
}

func letters(w string) int {
	n := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// plan is one request's criteria as the judge sees them: the case's and the controls,
// shuffled, under ids Q1, Q2, ... that do not tell them apart.
type plan struct {
	asked    []Criterion        // in prompt order, under the request's ids
	real     map[string]string  // request id -> the case's criterion id
	controls map[string]control // request id -> control
}

// planFor shuffles c's criteria and its controls under request ids; the same record gives
// the same plan, so that an unchanged prompt is answered from the cache.
func planFor(c Case, redact func(string) string) plan {
	h := fnv.New64a()
	h.Write([]byte(c.ScenarioID))
	for _, cr := range c.Criteria {
		h.Write([]byte{0})
		h.Write([]byte(cr.Statement))
	}
	for _, t := range c.Evidence.Turns() {
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
	for _, ctl := range controlsFor(c, redact, seed) {
		items = append(items, item{statement: ctl.statement, ctl: &ctl})
	}
	rand.New(rand.NewPCG(seed, 7)).Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	p := plan{real: map[string]string{}, controls: map[string]control{}}
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
