package rooktest

import (
	"flag"
	"regexp"
	"strconv"
	"strings"
)

// runFilter says whether go test's -run and -skip let a scenario subtest of test run, so
// that the run plans exactly what go test will run: the exit code, JUnit and report.yaml
// then agree. It matches as testing's own matcher does (testing/match.go): a pattern is
// split into alternatives on the '|' outside brackets and parentheses, each into elements
// on the '/' there; a subtest runs when some alternative matches its name's elements (a
// pattern with more elements than the name matches it partially, and the subtest runs to
// let its own subtests be matched), and -skip does not match it fully. exact is false
// only when a pattern is not a valid regular expression (testing then refuses it).
func runFilter(test string) (match func(subtest string) bool, exact bool) {
	all := func(string) bool { return true }
	filter, skip := filterMatch(&simple{}), filterMatch(alternatives{})
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		filter = splitPattern(f.Value.String())
	}
	if f := flag.Lookup("test.skip"); f != nil && f.Value.String() != "" {
		skip = splitPattern(f.Value.String())
	}
	if !filter.compile() || !skip.compile() {
		return all, false
	}
	return func(subtest string) bool {
		elem := strings.Split(test+"/"+rewrite(subtest), "/")
		if ok, _ := filter.matches(elem); !ok {
			return false
		}
		skipped, partial := skip.matches(elem)
		return !skipped || partial
	}, true
}

// filterMatch is a -run or -skip pattern, split as testing splits it.
type filterMatch interface {
	matches(elem []string) (ok, partial bool)
	compile() bool
}

// simple matches a name when each of its patterns matches the name's element in turn.
type simple struct {
	patterns []string
	res      []*regexp.Regexp
}

func (m *simple) matches(elem []string) (ok, partial bool) {
	for i, s := range elem {
		if i >= len(m.res) {
			break
		}
		if !m.res[i].MatchString(s) {
			return false, false
		}
	}
	return true, len(elem) < len(m.res)
}

func (m *simple) compile() bool {
	m.res = make([]*regexp.Regexp, len(m.patterns))
	for i, p := range m.patterns {
		re, err := regexp.Compile(rewrite(p))
		if err != nil {
			return false
		}
		m.res[i] = re
	}
	return true
}

// alternatives matches a name when one of them does.
type alternatives []*simple

func (m alternatives) matches(elem []string) (ok, partial bool) {
	for _, a := range m {
		if ok, partial = a.matches(elem); ok {
			return ok, partial
		}
	}
	return false, false
}

func (m alternatives) compile() bool {
	for _, a := range m {
		if !a.compile() {
			return false
		}
	}
	return true
}

// splitPattern splits a -run or -skip pattern as testing's splitRegexp does.
func splitPattern(s string) filterMatch {
	var alts alternatives
	cur := &simple{}
	brackets, parens := 0, 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			if brackets--; brackets < 0 { // an unmatched ']' is legal
				brackets = 0
			}
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				cur.patterns = append(cur.patterns, s[:i])
				if s[i] == '|' {
					alts = append(alts, cur)
					cur = &simple{}
				}
				s, i = s[i+1:], 0
				continue
			}
		}
		i++
	}
	cur.patterns = append(cur.patterns, s)
	if len(alts) == 0 {
		return cur
	}
	return append(alts, cur)
}

// rewrite is a name as testing writes it: white space as '_', unprintable runes quoted.
func rewrite(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case isSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isSpace(r rune) bool {
	if r < 0x2000 {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0, 0x1680:
			return true
		}
		return false
	}
	if r <= 0x200a {
		return true
	}
	switch r {
	case 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return false
}
