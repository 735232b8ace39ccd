package check

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// The checks on the text of the reply (or of the whole transcript).
func init() {
	for _, negate := range []bool{false, true} {
		name := "contains"
		if negate {
			name = "not_contains"
		}
		register(&Kind{Name: name, Turn: true, Params: []string{"text", "in", "case_sensitive"}, Parse: func(p Params) Check {
			c := &Contains{Negate: negate, In: textSource(p), CaseSensitive: p.Bool("case_sensitive")}
			if p.Require("text") {
				if c.Text = p.String("text"); c.Text == "" {
					p.Errorf("text", "must not be empty")
				}
			}
			return c
		}})
		name = "regex"
		if negate {
			name = "not_regex"
		}
		register(&Kind{Name: name, Turn: true, Params: []string{"pattern", "in"}, Parse: func(p Params) Check {
			c := &Regex{Negate: negate, In: textSource(p)}
			if p.Require("pattern") {
				c.Pattern = compile(p, "pattern")
			}
			return c
		}})
	}
	register(&Kind{Name: "equals", Turn: true, Params: []string{"value", "in", "case_sensitive"}, Parse: func(p Params) Check {
		c := &Equals{In: textSource(p), CaseSensitive: p.Bool("case_sensitive")}
		if p.Require("value") {
			c.Value = p.Scalar("value")
		}
		return c
	}})
}

// textSource reads in: output (the final reply, the default) or transcript.
func textSource(p Params) string {
	if !p.Has("in") {
		return "output"
	}
	in := p.String("in")
	if in != "output" && in != "transcript" {
		p.Errorf("in", "must be one of output, transcript, not %q", in)
	}
	return in
}

// compile reads key as an RE2 pattern.
func compile(p Params, key string) *regexp.Regexp {
	s := p.String(key)
	re, err := regexp.Compile(s)
	if err != nil {
		p.Errorf(key, "is not a valid RE2 expression: %v", err)
		return nil
	}
	return re
}

// text is what a text check reads: the final reply, or with in: transcript every reply
// of the agent. The user's turns are not in it: only what the agent said can satisfy a
// criterion about what it said.
func text(in string, ev *observe.Observations) (hay, where string) {
	if in == "transcript" {
		return ev.AgentText().Value, "the agent's replies"
	}
	return ev.Output().Value, "the reply"
}

func where(in string) string {
	if in == "transcript" {
		return "the agent's replies"
	}
	return "the reply"
}

// unreadReply says why the replies are not whole, when a hook printed the agent's words
// under a key the contract does not read; "" when they are.
func unreadReply(ev *observe.Observations) string {
	return ev.Turns().Gap()
}

// Contains passes when the text is present (absent, with Negate).
type Contains struct {
	Text          string
	In            string
	CaseSensitive bool
	Negate        bool
}

func (c *Contains) Detail() string { return c.Text }

func (c *Contains) Observes() Observations { return ObservesReply }

func (c *Contains) Expected() string {
	verb := "contains"
	if c.Negate {
		verb = "does not contain"
	}
	return fmt.Sprintf("%s %s %q%s", where(c.In), verb, c.Text, caseNote(c.CaseSensitive))
}

func (c *Contains) Judge(ev *observe.Observations) Result {
	if why := unreadReply(ev); why != "" {
		return unable(record.NotObservable, why)
	}
	hay, w := text(c.In, ev)
	i, j := Find(hay, c.Text, c.CaseSensitive)
	found := i >= 0
	r := Result{Status: passIf(found != c.Negate)}
	if found {
		r.Achieved, r.Evidence = fmt.Sprintf("%s contains %q", w, c.Text), Excerpt(hay, i, j-i)
	} else {
		r.Achieved, r.Evidence = fmt.Sprintf("%s does not contain %q", w, c.Text), Excerpt(hay, 0, 0)
	}
	return r
}

func caseNote(caseSensitive bool) string {
	if caseSensitive {
		return " (case-sensitive)"
	}
	return ""
}

// Regex passes when the RE2 pattern matches (does not, with Negate).
type Regex struct {
	Pattern *regexp.Regexp
	In      string
	Negate  bool
}

func (c *Regex) Detail() string { return "" }

func (c *Regex) Observes() Observations { return ObservesReply }

func (c *Regex) Expected() string {
	verb := "matches"
	if c.Negate {
		verb = "does not match"
	}
	return fmt.Sprintf("%s %s /%s/", where(c.In), verb, c.Pattern)
}

func (c *Regex) Judge(ev *observe.Observations) Result {
	if why := unreadReply(ev); why != "" {
		return unable(record.NotObservable, why)
	}
	hay, w := text(c.In, ev)
	loc := c.Pattern.FindStringIndex(hay)
	r := Result{Status: passIf((loc != nil) != c.Negate)}
	if loc != nil {
		r.Achieved = fmt.Sprintf("%s matches /%s/ at %q", w, c.Pattern, hay[loc[0]:loc[1]])
		r.Evidence = Excerpt(hay, loc[0], loc[1]-loc[0])
	} else {
		r.Achieved, r.Evidence = fmt.Sprintf("%s does not match /%s/", w, c.Pattern), Excerpt(hay, 0, 0)
	}
	return r
}

// Equals passes when the trimmed text equals the value.
type Equals struct {
	Value         string
	In            string
	CaseSensitive bool
}

func (c *Equals) Detail() string { return "" }

func (c *Equals) Observes() Observations { return ObservesReply }

func (c *Equals) Expected() string {
	return fmt.Sprintf("%s equals %q%s", where(c.In), c.Value, caseNote(c.CaseSensitive))
}

func (c *Equals) Judge(ev *observe.Observations) Result {
	return judgeEqual(ev, c.In, c.Value, c.CaseSensitive, true)
}

// judgeEqual passes when the trimmed text equals value (differs from it, with !want).
func judgeEqual(ev *observe.Observations, in, value string, caseSensitive, want bool) Result {
	if why := unreadReply(ev); why != "" {
		return unable(record.NotObservable, why)
	}
	hay, w := text(in, ev)
	got, v := strings.TrimSpace(hay), strings.TrimSpace(value)
	same := got == v || (!caseSensitive && strings.EqualFold(got, v))
	return Result{Status: passIf(same == want), Achieved: fmt.Sprintf("%s is %q", w, Clip(got, 200)), Evidence: Excerpt(hay, 0, 0)}
}

// Find returns where needle first occurs in hay, as byte offsets of hay itself, or -1.
// Case-insensitive matching folds case the way strings.EqualFold does, on the original
// text: lowercasing first would shift every offset after a rune whose lowercase has another
// length (Ⱥ grows, the Kelvin sign shrinks).
func Find(hay, needle string, caseSensitive bool) (start, end int) {
	if caseSensitive {
		i := strings.Index(hay, needle)
		if i < 0 {
			return -1, -1
		}
		return i, i + len(needle)
	}
	re, err := regexp.Compile("(?i)" + regexp.QuoteMeta(needle))
	if err != nil { // needle is not valid UTF-8: there is no case to fold
		return Find(hay, needle, true)
	}
	loc := re.FindStringIndex(hay)
	if loc == nil {
		return -1, -1
	}
	return loc[0], loc[1]
}

// Excerpt quotes hay around [at, at+n): the evidence a reader can find in the record. With
// n == 0 it quotes the start of hay.
func Excerpt(hay string, at, n int) string {
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

// Clip cuts s to at most n bytes, on a rune boundary, and marks the cut with "...".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// Some names the first n of items and counts the rest: "a, b, c and 4 more".
func Some(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// Pattern is a regular expression compiled on first use: a package-level pattern made with
// it costs nothing at the start of a binary that never reads it (the model judge's and red
// team's, with their Unicode classes, were about 1 MB at every start of a test binary).
func Pattern(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
