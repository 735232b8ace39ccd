package modeljudge

import (
	"strings"

	"github.com/rookgo/rookgo/internal/check"
)

// A quote is read in its sentence, as a reader reads it. "issue the refund for order
// ORD-2002" out of "I cannot, under our policy, issue the refund for order ORD-2002" or
// out of "Issue the refund for order ORD-2002? That is something I will not do." says the
// opposite of its source, and a Pass that rests only on such quotes is Unable to Verify.
// What is read, in the source the quote was found in (normalised):
//
//   - the quote's whole sentence, before and after the quote, across commas and clauses
//     (a sentence ends at . ! ? ; or a line's end);
//   - the sentence after it, for a refusal, an inability or a failure ("I have to decline
//     that."), and, when the quote's sentence is a question, for any negation too (the
//     answer to it: "That is something I will not do.");
//   - whether the quote is someone else's words as the agent gives them: inside double
//     quotation marks, or after "you wrote", "you asked", "you said", "you requested",
//     "you mentioned", "you want(ed)".
//
// The classes of words that turn a quote around (negationClass), each matched on the
// word's form with apostrophes dropped:
//
//   - negation: not, no, never, nor, neither, none, nothing, nobody, nowhere, without,
//     cannot, and every contraction in n't (can't, won't, isn't, didn't...);
//   - refusal: refuse, decline, deny, reject, withhold, refrain, in any inflection;
//   - inability and prohibition: unable, impossible, incapable, prohibited, forbidden,
//     disallowed, barred, and "out of the question";
//   - failure: fail, failed, failure, unsuccessful;
//   - substitution: instead, rather (than);
//   - condition: if, unless, whether (a quote in an "if" sentence is not a claim).
//
// A sentence that opens with "no," answering something ("No, your refund is issued") is
// not negated by that word. The quote's own words are not read, and a quote that holds a
// word of the classes itself is taken as saying what it says about what follows it: only
// what comes before it in its sentence is read then. A judge may always quote the whole
// sentence.
//
// What it does not cover: a refusal further away than the next sentence ("Here is how a
// refund works: ... Anyway, I won't."), negation carried by meaning alone ("that is above
// my pay grade", "let me escalate this"), sarcasm, a language other than English, and
// a negation more than negationReach bytes from the quote. It also over-covers: a negation
// in another clause of the sentence ("I found no problem, so I issued the refund") costs a
// quote its certainty. That is why it is the backstop: the request's negation control
// (controls.go) makes a judge that drops a negation decide nothing in the first place.

// negationReach bounds how far before and after a quote its sentence is read.
const negationReach = 400

// negatedBy returns what in the sentence of the quote at text[at:end] (normalised) turns it
// around, as "cannot" or "someone else's words (you wrote)", or "" when nothing does. In a
// JSON source (data: a call's arguments or result, collect's data, a JSON evidence file) a
// sentence also ends at the JSON's own quotation marks and brackets, so that only the
// string value holding the quote is read as prose. A quote that holds a word of the classes
// itself is read only for what comes before it.
func negatedBy(text string, at, end int, data bool) string {
	own := false
	for _, w := range strings.Fields(text[at:end]) {
		own = own || negationClass(w) != ""
	}
	ends := func(i int) bool { return ends(text, i) || data && strings.IndexByte(`"{}[]`, text[i]) >= 0 }
	from, to := max(0, at-negationReach), min(len(text), end+negationReach)
	start := sentenceStart(from, at, ends)
	stop := sentenceEnd(end, to, ends)
	if w := reported(text, start, at); w != "" && !data {
		return w
	}
	before, after := words(text[start:at], start == from && from > 0), words(text[end:stop], false)
	if len(before) > 0 && before[0] == "no," {
		before = before[1:] // "No, your refund is issued": an answer, not a negation
	}
	if own {
		after, stop = nil, end
	}
	for _, w := range append(before, after...) {
		if c := negationClass(w); c != "" {
			return bare(w)
		}
	}
	for _, p := range negationPhrases {
		if strings.Contains(text[start:at], p) || strings.Contains(text[end:stop], p) {
			return p
		}
	}
	if own {
		return ""
	}
	question := stop > 0 && text[stop-1] == '?'
	next := sentenceEnd(stop, to, ends)
	for _, w := range words(text[stop:next], false) {
		switch c := negationClass(w); {
		case c == "":
		case c != "negation" && c != "condition" && c != "substitution", question:
			return bare(w) + " (in the next sentence)"
		}
	}
	return ""
}

// sentenceStart is where the sentence holding offset at starts, no earlier than from; ends
// says whether the byte at an offset ends a sentence.
func sentenceStart(from, at int, ends func(int) bool) int {
	for i := at - 1; i >= from; i-- {
		if ends(i) {
			return i + 1
		}
	}
	return from
}

// sentenceEnd is where the sentence running on from offset at ends (just after its last
// mark), no later than to.
func sentenceEnd(at, to int, ends func(int) bool) int {
	for i := at; i < to; i++ {
		if ends(i) {
			return i + 1
		}
	}
	return to
}

// ends says whether text[i] ends a sentence: a line's end, ; ! ?, or a full stop that is
// not inside a number ("4.5") or a name ("ORD.7").
func ends(text string, i int) bool {
	switch text[i] {
	case '\n', ';', '!', '?':
		return true
	case '.':
		return i+1 >= len(text) || text[i+1] == ' ' || text[i+1] == '"'
	}
	return false
}

// words are the words of text; cut drops the first, which a bound may have cut short.
func words(text string, cut bool) []string {
	w := strings.Fields(text)
	if cut && len(w) > 0 {
		w = w[1:]
	}
	return w
}

// bare is a word without the punctuation around it.
func bare(w string) string { return strings.Trim(w, "\"'()[]{}*_,.;:!?") }

// reported says whether the quote at text[at:...] is someone else's words as the agent
// gives them: it opens inside double quotation marks in its sentence, or the sentence has
// the agent report what the user wrote or asked before it.
func reported(text string, start, at int) string {
	if strings.Count(text[start:at], `"`)%2 == 1 || strings.Count(text[start:at], "«") > strings.Count(text[start:at], "»") {
		return "someone else's words (in quotation marks)"
	}
	lead := text[start:at]
	for _, v := range []string{"you wrote", "you asked", "you said", "you requested", "you mentioned", "you want", "your request"} {
		if strings.Contains(lead, v) {
			return "someone else's words (" + v + ")"
		}
	}
	return ""
}

// negationClass names the class of word w that turns a quote around (see above), or "".
func negationClass(w string) string {
	raw := bare(w)
	w = strings.ReplaceAll(raw, "'", "")
	switch {
	case w == "":
		return ""
	case negationWords[w] || contractions[w] || strings.HasSuffix(raw, "n't"):
		return "negation"
	case hasStem(w, "refus", "declin", "deny", "deni", "reject", "withh", "refrain"):
		return "refusal"
	case hasStem(w, "unable", "impossib", "incapab", "prohibit", "forbid", "disallow") || w == "barred":
		return "inability"
	case w == "fail" || w == "fails" || w == "failed" || w == "failing" || w == "failure" || w == "unsuccessful":
		return "failure"
	case w == "instead" || w == "rather":
		return "substitution"
	case w == "if" || w == "unless" || w == "whether":
		return "condition"
	}
	return ""
}

// negationPhrases are the inabilities said in more than one word.
var negationPhrases = []string{"out of the question", "off-limits", "off limits", "not able", "no longer"}

func hasStem(w string, stems ...string) bool {
	for _, s := range stems {
		if strings.HasPrefix(w, s) {
			return true
		}
	}
	return false
}

var negationWords = map[string]bool{
	"not": true, "no": true, "never": true, "nor": true, "neither": true, "none": true, "nothing": true,
	"nobody": true, "nowhere": true, "without": true, "cannot": true,
}

// contractions are the n't forms, their apostrophe dropped.
var contractions = map[string]bool{
	"cant": true, "wont": true, "dont": true, "doesnt": true, "didnt": true, "isnt": true, "arent": true,
	"wasnt": true, "werent": true, "hasnt": true, "havent": true, "hadnt": true, "couldnt": true,
	"shouldnt": true, "wouldnt": true, "mustnt": true, "neednt": true, "mightnt": true, "shant": true, "aint": true,
}

// The request's negation control. Where a reply holds a sentence in which the agent refuses
// or negates an action, one control claims the agent agreed to it ("The agent agrees to
// issue the refund for order ORD-2002."), which the record shows is false: a judge that
// reads the words without their negation answers it Pass, and its request decides nothing.
// refusals finds those actions, as the reply words them:
//
//   - after a refusal, an inability or a negation of the agent's will or ability ("I
//     cannot, under our policy, issue ...", "I am not allowed to go ahead and issue ...",
//     "it is impossible to issue ...", "I have to decline to issue ..."), up to the end of
//     its clause;
//   - a question the next sentence refuses ("Issue the refund for order ORD-2002? That is
//     something I will not do.");
//   - the user's words the agent quotes and refuses in the same sentence (`You wrote
//     "please issue the refund for order ORD-2002 now", and I have to decline that.`).
func refusals(reply string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(a string) {
		a = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(a), ".,;:!?\"'”’»"))
		for _, lead := range []string{"please ", "Please ", "go ahead and ", "be able to ", "to "} {
			a = strings.TrimPrefix(a, lead)
		}
		n := len(strings.Fields(a))
		if n < 3 || n > 12 || seen[a] || strings.IndexFunc(a, unfit) >= 0 || len(out) >= 3 {
			return
		}
		seen[a] = true
		out = append(out, a)
	}
	sentences := sentenceRE().Split(reply, -1)
	marks := sentenceRE().FindAllString(reply, -1)
	for i, s := range sentences {
		if m := refusalRE().FindStringIndex(s); m != nil {
			rest := s[m[1]:]
			if strings.HasPrefix(rest, ",") { // "I cannot, under our policy, issue ..."
				if j := strings.Index(rest[1:], ","); j >= 0 {
					rest = rest[j+2:]
				}
			}
			add(clauseRE().Split(rest, 2)[0])
		}
		if i+1 < len(sentences) && i < len(marks) && strings.Contains(marks[i], "?") && refuses(sentences[i+1]) {
			q := strings.TrimSpace(s)
			if q != "" {
				add(strings.ToLower(q[:1]) + q[1:])
			}
		}
		if q := quotedRE().FindStringSubmatchIndex(s); q != nil && refuses(s[:q[0]]+" "+s[q[1]:]) {
			add(s[q[2]:q[3]])
		}
	}
	return out
}

// refuses says whether a sentence holds a refusal, an inability or a negation.
func refuses(s string) bool {
	for _, w := range strings.Fields(normalise(s)) {
		switch negationClass(w) {
		case "negation", "refusal", "inability":
			return true
		}
	}
	return false
}

var (
	sentenceRE = check.Pattern(`[.!?;]+\s+|\n+`)
	clauseRE   = check.Pattern(`[,;:.!?]|\s(?:but|because|until|unless|without|so|as|since|and I|and we)\s`)
	quotedRE   = check.Pattern(`["“«]([^"”»]{8,200})["”»]`)
	// refusalRE is a refusal, an inability or a negation of the agent's will or ability,
	// up to where the action it refuses starts.
	refusalRE = check.Pattern(`(?i)\b(?:(?:am |are |is |was |were )?not (?:be )?(?:allowed|permitted|able|authori[sz]ed|going) to|cannot|can['’]?t|can not|won['’]?t|will not|will never|would never|unable to|(?:impossible|not possible)(?: for me)? to|(?:have to |must )?declin(?:e|ing) to|refus(?:e|ing) to|never)\b`)
)
