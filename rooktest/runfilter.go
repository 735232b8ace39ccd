package rooktest

import (
	"flag"
	"regexp"
	"strings"
)

// runFilter says whether go test's -run lets a scenario subtest of test run, so that the
// run plans what will run. It splits -run as testing does (on '/' outside brackets and
// parentheses) and matches the first two elements. exact says whether the answer is
// certain; it is not when -skip is given or -run has alternatives at the top (A|B/C, which
// testing matches per alternative), and then everything is planned and left to go test.
func runFilter(test string) (match func(subtest string) bool, exact bool) {
	all := func(string) bool { return true }
	if f := flag.Lookup("test.skip"); f != nil && f.Value.String() != "" {
		return all, false
	}
	f := flag.Lookup("test.run")
	if f == nil || f.Value.String() == "" {
		return all, true
	}
	parts := splitRun(f.Value.String())
	res := make([]*regexp.Regexp, len(parts))
	for i, p := range parts {
		re, err := regexp.Compile(p)
		if err != nil {
			return all, false
		}
		res[i] = re
	}
	if strings.Contains(parts[0], "|") && len(parts) > 1 {
		return all, false
	}
	if !res[0].MatchString(test) {
		return func(string) bool { return false }, true
	}
	if len(res) < 2 {
		return all, true
	}
	return res[1].MatchString, true
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
