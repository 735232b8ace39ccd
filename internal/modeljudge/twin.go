package modeljudge

import (
	"math/rand/v2"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
)

// A twin is a control made of one of the request's own criteria: the one value its first
// sentence names (an identifier such as ORD-2002, or a number such as 1,250) changed by a
// digit to a value that the judge's prompt never shows, where the criterion's own value is
// in the record as the prompt shows it. It reads as the criteria read, because it is one of
// them; it is false, because it claims something nothing in the record shows.
//
// Only a claim that something is so is twinned. A first sentence that holds a negation, a
// refusal, a bound or comparison, an approximation or an order in time (unsafeTwin) is
// left alone: its twin could hold ("the reply must not contain ACC-1009" holds whatever the
// record says of ACC-1001). A wording outside those classes that still makes the twin hold
// ("the agent omits ORD-2092") costs the request its verdict, never a wrong Pass: a careful
// judge answers the twin Pass, the control is failed, and the request decides nothing.

var (
	twinValueRE = check.Pattern(`\b[A-Z][A-Z0-9]*-\d+\b|\b\d[\d,.]*\d\b|\b\d\b`)
	unsafeTwin  = check.Pattern(`(?i)\b(not|no|never|none|nothing|nobody|without|neither|nor|fail\w*|refus\w*|declin\w*|den(y|ies|ied)|unable|cannot|avoid\w*|prevent\w*|block\w*|reject\w*|forbid\w*|prohibit\w*|omit\w*|lack\w*|miss\w*|at most|at least|within|under|over|below|above|exceed\w*|limit\w*|max\w*|min\w*|up to|fewer|less|more|only|before|after|until|between|range|approximately|about|around|roughly|nearly|almost)\b|n['’]t\b|[<>≤≥]`)
)

// twinOf is a twin of one of c's criteria, or false when none can be made.
func twinOf(c Case, redact func(string) string, budget int, rnd *rand.Rand) (string, bool) {
	criteria := c.Criteria
	c.Criteria = nil // the prompt's record and goal, without the criteria that name the values
	text, _ := prompt(c, budget)
	whole := normalise(redact(text))
	rec := whole
	if i := strings.Index(rec, "the record:"); i >= 0 {
		rec = rec[i:]
	}
	type candidate struct {
		statement string
		at        []int
	}
	var candidates []candidate
	for _, cr := range criteria {
		s := strings.Join(strings.Fields(cr.Statement), " ")
		at, ok := TwinValue(s)
		if !ok || len(locate(rec, normalise(s[at[0]:at[1]]))) == 0 {
			continue
		}
		candidates = append(candidates, candidate{s, at})
	}
	rnd.Shuffle(len(candidates), func(i, j int) { candidates[i], candidates[j] = candidates[j], candidates[i] })
	for _, cd := range candidates {
		v := cd.statement[cd.at[0]:cd.at[1]]
		for _, nv := range changedDigits(v, rnd) {
			if len(locate(whole, normalise(nv))) == 0 {
				return cd.statement[:cd.at[0]] + nv + cd.statement[cd.at[1]:], true
			}
		}
	}
	return "", false
}

// TwinValue is where the one value that statement's first sentence claims is, when that
// sentence claims something is so (no negation, refusal, bound, comparison, approximation
// or order in time) and names exactly one value: what a twin changes.
func TwinValue(statement string) ([]int, bool) {
	first := statement
	if i := strings.Index(statement, ". "); i > 0 {
		first = statement[:i+1]
	}
	if unsafeTwin().MatchString(first) {
		return nil, false
	}
	at := twinValueRE().FindAllStringIndex(first, -1)
	if len(at) != 1 {
		return nil, false
	}
	return at[0], true
}
