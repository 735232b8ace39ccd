package rooktest

import (
	"flag"
	"regexp"
	"strings"
)

// runFilter says whether go test's -run lets a scenario subtest of test run, so that the
// run plans what will run. It splits -run as testing does (on '/' outside brackets and
// parentheses) and matches the first two elements; when -run cannot be read, everything
// runs.
func runFilter(test string) func(subtest string) bool {
	all := func(string) bool { return true }
	f := flag.Lookup("test.run")
	if f == nil || f.Value.String() == "" {
		return all
	}
	parts := splitRun(f.Value.String())
	res := make([]*regexp.Regexp, len(parts))
	for i, p := range parts {
		re, err := regexp.Compile(p)
		if err != nil {
			return all
		}
		res[i] = re
	}
	// A pattern with alternatives at the top (A|B/C) is matched per alternative by
	// testing; reading it is left to go test, and everything is planned.
	if strings.Contains(parts[0], "|") && len(parts) > 1 {
		return all
	}
	if !res[0].MatchString(test) {
		return func(string) bool { return false }
	}
	if len(res) < 2 {
		return all
	}
	return res[1].MatchString
}

// splitRun splits a -run pattern on the slashes outside brackets and parentheses.
func splitRun(s string) []string {
	var parts []string
	depth, start := 0, 0
	inClass := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '(' && !inClass:
			depth++
		case c == ')' && !inClass:
			depth--
		case c == '/' && !inClass && depth == 0:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}
