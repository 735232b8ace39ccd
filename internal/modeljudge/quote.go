package modeljudge

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A quote proves something only as its source says it: "over my limit of 20" is not in
// "over my limit of 200 dollars", and "issue the refund" out of "I cannot issue the refund"
// says the opposite of its source. A quote is found only where it starts and ends on the
// edges of the source's words and numbers, and the words just before it in the same clause
// are read for a negation it leaves out.

// occurrence is where a quote was found in one source.
type occurrence struct {
	label string
	// negatedBy is the negation the quote leaves out ("i cannot"), or "".
	negatedBy string
}

// locate returns the offsets in text at which q starts on word and number edges.
func locate(text, q string) []int {
	var at []int
	for from := 0; from <= len(text)-len(q); {
		i := strings.Index(text[from:], q)
		if i < 0 {
			break
		}
		i += from
		if !joined(text, i) && !joined(text, i+len(q)) {
			at = append(at, i)
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		from = i + max(size, 1)
	}
	return at
}

// joined says whether offset at of s falls inside a word or a number: between two letters
// or digits, inside "5,000.00" or "ORD-2002", or between a minus sign and its number.
func joined(s string, at int) bool {
	if at <= 0 || at >= len(s) {
		return false
	}
	a, asz := utf8.DecodeLastRuneInString(s[:at])
	b, bsz := utf8.DecodeRuneInString(s[at:])
	before, _ := utf8.DecodeLastRuneInString(s[:at-asz]) // the rune before a, or RuneError
	after, _ := utf8.DecodeRuneInString(s[at+bsz:])      // the rune after b, or RuneError
	switch {
	case alnum(a) && alnum(b):
		return true
	case alnum(a) && inner(b, a, after):
		return true
	case alnum(b) && inner(a, before, b):
		return true
	case a == '-' && unicode.IsDigit(b) && !alnum(before):
		return true // a sign: "-200" is not "200"
	}
	return false
}

// inner says whether punctuation p between x and y joins them into one token: a decimal
// point or a thousands separator between digits, a hyphen between letters or digits.
func inner(p, x, y rune) bool {
	switch p {
	case '.', ',':
		return unicode.IsDigit(x) && unicode.IsDigit(y)
	case '-':
		return alnum(x) && alnum(y)
	}
	return false
}

func alnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// negations are the words that turn what follows them around; any word ending in n't is
// one too.
var negations = map[string]bool{
	"not": true, "no": true, "never": true, "cannot": true, "cant": true, "wont": true, "dont": true,
	"unable": true, "refuse": true, "refuses": true, "refused": true, "decline": true, "declines": true,
	"declined": true, "nor": true, "neither": true, "without": true, "nothing": true, "none": true,
	"nobody": true, "nowhere": true, "denied": true, "deny": true, "denies": true,
}

// negationWindow is how many words before a quote are read for a negation, found within
// negationReach bytes of it.
const (
	negationWindow = 5
	negationReach  = 160
)

// negatedBy returns the words before offset at of text (normalised) when one of them
// negates what starts there ("i cannot"), or "" when none does. Only the same
// clause counts: a sentence's end, a colon, a semicolon or a comma ends it ("No, your
// refund is issued" is not negated).
func negatedBy(text string, at int) string {
	start := max(0, at-negationReach) // the window's words are within reach
	cut := start > 0                  // and the first may be cut short
	for i := at - 1; i >= start; i-- {
		c := text[i]
		if c == '\n' || c == ';' || c == '!' || c == '?' ||
			((c == '.' || c == ',' || c == ':') && (i+1 >= len(text) || text[i+1] == ' ')) {
			start, cut = i+1, false
			break
		}
	}
	words := strings.Fields(text[start:at])
	if cut && len(words) > 0 {
		words = words[1:]
	}
	if len(words) > negationWindow {
		words = words[len(words)-negationWindow:]
	}
	for _, w := range words {
		bare := strings.Trim(strings.ReplaceAll(w, "'", ""), "\"()[]{}*_")
		if negations[bare] || strings.HasSuffix(w, "n't") {
			return strings.Trim(strings.Join(words, " "), "\"'([{*_ ")
		}
	}
	return ""
}
