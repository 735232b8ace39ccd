package modeljudge

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
)

// A verdict is grounded in what the agent or the world produced, never in what the tester
// wrote (the user's turns, the goal, a criterion) or in the harness's own labels and
// placeholders: a quote of "turn 1: agent" or "(none: the hooks observed ...)" proves
// nothing about the agent.

// source is one text a quote may come from, and how a verdict row names it.
type source struct {
	label string
	text  string // normalised
	// data is set for JSON: a call's arguments or result, collect's data, a JSON file.
	data bool
}

// grounds are the texts a case's quotes are looked up in: the agent's (sources), and the
// whole record as the judge read it (to say when a quote is the tester's or the harness's).
type grounds struct {
	sources []source
	sent    string // normalised
	// tester are the tester's words as the agent was given them: the goal and each user
	// turn (setup messages among them), normalised.
	tester []string
}

// groundsOf lists the case's sources, redacted as the judge was sent them: each turn's
// reply, each observed call's arguments and result, collect's data and each evidence file.
func groundsOf(c Case, redact func(string) string) grounds {
	var g grounds
	add := func(label, text string) {
		if strings.TrimSpace(text) != "" {
			g.sources = append(g.sources, source{label: label, text: normalise(redact(text)), data: json.Valid([]byte(text))})
		}
	}
	ev := c.Evidence
	for _, t := range ev.Turns().Value {
		add(fmt.Sprintf("turn %d reply", t.N), t.Output)
		if strings.TrimSpace(t.Input) != "" {
			g.tester = append(g.tester, normalise(redact(t.Input)))
		}
	}
	if strings.TrimSpace(c.Goal) != "" {
		g.tester = append(g.tester, normalise(redact(c.Goal)))
	}
	if calls := ev.Calls(); calls.Observed {
		for i, call := range calls.Value {
			id := fmt.Sprintf("CALL-%02d", i+1)
			add(id+" "+call.Name+" arguments", jsonText(call.Arguments))
			if call.Output != nil {
				add(id+" "+call.Name+" result", jsonText(call.Output))
			}
		}
	}
	if collect := ev.Collect(); collect.Observed {
		add("collect data", jsonText(collect.Value))
	}
	for _, f := range c.Files {
		add("evidence file "+f.label(), f.Text)
	}
	full, _ := recordText(c)
	user, _ := prompt(c, 1<<62)
	g.sent = normalise(redact(full + "\n" + user))
	return g
}

// maxOccurrences bounds how many occurrences of one quote are read in their sentences: a
// reply of one phrase repeated a million times is hostile input, not a million readings.
const maxOccurrences = 100

// find looks q (normalised) up in the agent's sources, on word and number edges: the
// first occurrence no negation precedes, else the first negated one. cut says q is in a
// source only inside a word or a number.
func (g grounds) find(q string) (o occurrence, ok, cut bool) {
	read := 0 // occurrences read in their sentence, over every source
	for _, s := range g.sources {
		for _, at := range locate(s.text, q) {
			if read++; read > maxOccurrences {
				break // a quote found this often is taken as the ones read already say
			}
			neg := negatedBy(s.text, at, at+len(q), s.data)
			if neg == "" {
				return occurrence{label: s.label}, true, false
			}
			if !ok {
				o, ok = occurrence{label: s.label, negatedBy: neg}, true
			}
		}
		cut = cut || strings.Contains(s.text, q)
	}
	return o, ok, cut && !ok
}

// groundQuotes looks each quote up; it returns where each was found, or the reason the
// row cannot stand.
func (g grounds) groundQuotes(quotes []string) (found []occurrence, why string) {
	for _, q := range quotes {
		n := normalise(q)
		if len([]rune(n)) < MinQuote {
			return nil, "evidence too short to ground anything: " + fmt.Sprintf("%q", check.Clip(q, 200))
		}
		if g.testers(n) {
			return nil, "the judge quoted the tester's words (the goal or a user turn), which ground nothing even where a source echoes them: " +
				fmt.Sprintf("%q", check.Clip(q, 200))
		}
		o, ok, cut := g.find(n)
		switch {
		case ok:
			found = append(found, o)
		case cut:
			return nil, "the quote cuts a word or a number of the record in two: " + fmt.Sprintf("%q", check.Clip(q, 200)) +
				" (a quote must start and end where a word or a number of its source does)"
		case strings.Contains(g.sent, n):
			return nil, "the judge quoted the tester or the harness, not the agent: " + fmt.Sprintf("%q", check.Clip(q, 200)) +
				" (a quote must come from the agent's replies, its tool calls, collect's data or an evidence file)"
		default:
			return nil, "evidence not found in the record: " + fmt.Sprintf("%q", check.Clip(q, 200))
		}
	}
	return found, ""
}

// testers says whether quote q (normalised) is the tester's words: a whole user turn or the
// goal, or three words or more of one, on its words' edges. An agent's source that echoes
// them (an evidence file that stores each turn's goal, a reply that repeats the request)
// does not make them the agent's.
func (g grounds) testers(q string) bool {
	words := len(strings.Fields(q))
	for _, t := range g.tester {
		if t == q || words >= 3 && len(locate(t, q)) > 0 {
			return true
		}
	}
	return false
}
