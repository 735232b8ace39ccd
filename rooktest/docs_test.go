package rooktest

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	// docFlag is a -rook.* flag as the docs write it.
	docFlag = regexp.MustCompile(`-rook\.[a-z][a-z0-9-]*[a-z0-9]`)
	// docVar is a ROOKTEST_* or ROOK_* variable as the docs write it; one followed by _* or
	// * is a family (ROOK_JUDGE_*), not a variable.
	docVar = regexp.MustCompile(`\bROOK(?:TEST)?_[A-Z0-9_]*[A-Z0-9]\b`)
	// goVar is a ROOKTEST_* or ROOK_* name written as a Go string literal; testVar one a
	// test reads from its environment.
	goVar   = regexp.MustCompile(`"(ROOK(?:TEST)?_[A-Z0-9_]*[A-Z0-9])`)
	testVar = regexp.MustCompile(`(?:Getenv|LookupEnv)\("(ROOK(?:TEST)?_[A-Z0-9_]*[A-Z0-9])"\)`)
)

// docProblems names, with its page and line, each -rook.* flag of text that is not one of
// the run's flags and each ROOKTEST_*/ROOK_* variable that nothing reads.
func docProblems(page, text string, isFlag func(string) bool, read map[string]bool) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		for _, f := range docFlag.FindAllString(line, -1) {
			if !isFlag(strings.TrimPrefix(f, "-")) {
				out = append(out, fmt.Sprintf("%s:%d: %s is not a flag of the run", page, i+1, f))
			}
		}
		for _, at := range docVar.FindAllStringIndex(line, -1) {
			name, rest := line[at[0]:at[1]], line[at[1]:]
			if strings.HasPrefix(rest, "_*") || strings.HasPrefix(rest, "*") || read[name] {
				continue
			}
			out = append(out, fmt.Sprintf("%s:%d: %s is not a variable anything reads", page, i+1, name))
		}
	}
	return out
}

// readVars are the ROOKTEST_* and ROOK_* variables something reads: every flag's twin, the
// judge's settings, the hook contract's, every name the project's Go code outside its test
// files writes as a string, and those its tests read from their environment
// (ROOK_REQUIRE_VALIDATOR).
func readVars(t *testing.T, root string) map[string]bool {
	t.Helper()
	read := map[string]bool{}
	for _, v := range knownVars() {
		read[v] = true
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		names := goVar
		if strings.HasSuffix(path, "_test.go") {
			names = testVar // a test's other literals include names written wrong on purpose
		}
		for _, m := range names.FindAllStringSubmatch(string(src), -1) {
			read[m[1]] = true
		}
		return nil
	})
	require.NoError(t, err)
	return read
}

// Every -rook.* flag and every ROOKTEST_*/ROOK_* variable the README and docs/ name exists:
// a renamed flag or a misspelt variable in the docs fails here, naming its page and line.
func TestDocumentedFlagsAndVariablesExist(t *testing.T) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	isFlag := func(name string) bool { return flag.Lookup(name) != nil }
	read := readVars(t, root)
	var problems []string
	for _, p := range pages {
		text, err := os.ReadFile(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		problems = append(problems, docProblems(filepath.ToSlash(rel), string(text), isFlag, read)...)
	}
	assert.Empty(t, problems)

	// The check fails on what it is for: a misspelt flag, a variable nothing reads.
	bad := "run it with -rook.concurency=4\nor set ROOKTEST_CONCURENCY=4, as ROOK_JUDGE_* and -rook.strict say\n"
	assert.Equal(t, []string{
		"docs/running.md:1: -rook.concurency is not a flag of the run",
		"docs/running.md:2: ROOKTEST_CONCURENCY is not a variable anything reads",
	}, docProblems("docs/running.md", bad, isFlag, read))
}
