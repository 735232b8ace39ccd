package decide

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
)

func reply(text string) *observe.Observations {
	return observe.Said(observe.Given{Input: "q", Output: text})
}

// Runes whose lowercase is longer (Ⱥ) or shorter (the Kelvin sign) than themselves moved
// the offsets of case-insensitive matches off the original text: a panic, or a misquote.
func TestCaseInsensitiveMatchesQuoteTheOriginal(t *testing.T) {
	for name, text := range map[string]string{
		"lowercase grows":   strings.Repeat("Ⱥ", 100) + " hello " + strings.Repeat("z", 200),
		"lowercase shrinks": strings.Repeat("\u212a", 100) + " hello " + strings.Repeat("z", 200),
		"dotted capital I":  strings.Repeat("İ", 100) + " hello " + strings.Repeat("z", 200),
	} {
		t.Run(name, func(t *testing.T) {
			ev := reply(text)
			rows := evaluate([]scenario.Criterion{criterion(t, "{statement: s, check: contains, params: {text: HELLO}}")}, ev, 1)
			assert.Equal(t, record.Pass, rows[0].Status)
			assert.Contains(t, rows[0].Evidence, "hello", "the quote shows the match")
			hits := forbidden([]string{"Hello"}, ev)
			if assert.Len(t, hits, 1) {
				assert.Contains(t, hits[0].Quote, "hello")
			}
		})
	}
	// Case folding reaches beyond ASCII: the Kelvin sign is a K.
	rows := evaluate([]scenario.Criterion{criterion(t, "{statement: s, check: contains, params: {text: ok}}")}, reply("all \u212a now"), 1)
	assert.Equal(t, record.Fail, rows[0].Status, "no 'ok' here")
	rows = evaluate([]scenario.Criterion{criterion(t, "{statement: s, check: contains, params: {text: ok}}")}, reply("O\u212a then"), 1)
	assert.Equal(t, record.Pass, rows[0].Status)
	assert.Contains(t, rows[0].Evidence, "O\u212a")
}

// FuzzJudge feeds arbitrary replies and needles through the text checks and forbidden:
// no panic, and every quote is valid text.
func FuzzJudge(f *testing.F) {
	f.Add("Your refund has been issued", "REFUND")
	f.Add(strings.Repeat("Ⱥ", 90)+"x", "x")
	f.Add("\u212a\u212aİ", "k")
	f.Add("\xff\xfe broken", "\xfe")
	f.Fuzz(func(t *testing.T, text, needle string) {
		if strings.TrimSpace(needle) == "" {
			return
		}
		ev := reply(text)
		criteria := []scenario.Criterion{
			{Criterion: spec.Criterion{ID: "C1", Kind: "contains"}, Check: &check.Contains{Text: needle}},
			{Criterion: spec.Criterion{ID: "C2", Kind: "not_contains"}, Check: &check.Contains{Text: needle, In: "transcript", Negate: true}},
			{Criterion: spec.Criterion{ID: "C3", Kind: "equals"}, Check: &check.Equals{Value: needle}},
		}
		for _, r := range evaluate(criteria, ev, 1) {
			assert.True(t, utf8.ValidString(r.Evidence), "%q", r.Evidence)
			assert.NotEqual(t, record.UnableToVerify, r.Status)
		}
		for _, h := range forbidden([]string{needle}, ev) {
			assert.True(t, utf8.ValidString(h.Quote), "%q", h.Quote)
		}
	})
}
