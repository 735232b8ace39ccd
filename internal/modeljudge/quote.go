package modeljudge

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A quote proves something only as its source says it: "over my limit of 20" is not in
// "over my limit of 200 dollars", and "issue the refund" out of "I cannot issue the refund"
// says the opposite of its source. A quote is found only where it starts and ends on the
// edges of the source's words and numbers (a number's group separators included), and it
// is read in its sentence for what it leaves out that turns it around (negation.go).

// occurrence is where a quote was found in one source.
type occurrence struct {
	label string
	// negatedBy is what in the quote's sentence turns it around and the quote leaves out
	// ("cannot"), or "".
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
	return grouped(s, at)
}

// inner says whether punctuation p between x and y joins them into one token: a decimal
// point or a thousands separator between digits, a hyphen between letters or digits.
func inner(p, x, y rune) bool {
	switch p {
	case '.', ',', '\'':
		return unicode.IsDigit(x) && unicode.IsDigit(y)
	case '-':
		return alnum(x) && alnum(y)
	}
	return false
}

// grouped says whether offset at of s falls inside a number written with a space as its
// group separator ("4 500", "1 250 000"; normalise has made every Unicode space, the
// no-break and narrow no-break ones among them, a plain space): at is between a digit and
// the space before a group of exactly three digits, or between that space and the group.
// A quote may not stop at "4" of "4 500". The other separators (comma, dot, apostrophe)
// join by inner.
func grouped(s string, at int) bool {
	group := func(i int) bool { // s[i:] is a space and three digits that end there
		if i+4 > len(s) || s[i] != ' ' {
			return false
		}
		for k := 1; k <= 3; k++ {
			if !isDigit(s[i+k]) {
				return false
			}
		}
		return i+4 == len(s) || !isDigit(s[i+4])
	}
	switch {
	case at > 0 && isDigit(s[at-1]) && group(at):
		return true // "4|␣500"
	case at > 1 && s[at-1] == ' ' && isDigit(s[at-2]) && group(at-1):
		return true // "4␣|500"
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func alnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
