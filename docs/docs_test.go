// Package docs_test holds the project's pages to the code: every shell and YAML block of
// README.md and docs/*.md is run by a test or marked as an illustration in the page's
// source, the blocks the pages mark as a script's are what the script runs, and every link
// between the pages resolves.
//
// A block is marked by an HTML comment on the line before it, which a page's reader does
// not see:
//
//	<!-- docs: illustration (why) -->               shown, not run
//	<!-- docs: run by TestName -->                  run as written by that test
//	<!-- docs: scenario -->, <!-- docs: profile --> read by the parser and the schema
//	<!-- docs: docs/testdata/x.txtar doc/NAME -->   given to that script as doc/NAME
//	<!-- docs: docs/testdata/x.txtar -->            each command line is one of the script's
package docs_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// block is one fenced block of a page.
type block struct {
	page   string // relative to the repository
	line   int    // of the opening fence
	lang   string
	text   string
	marker string // what follows "docs:" in the comment before it; "" when unmarked
}

func (b block) String() string { return fmt.Sprintf("%s:%d", b.page, b.line) }

var (
	markerLine      = regexp.MustCompile(`^<!-- docs: (.*?) -->$`)
	trailingComment = regexp.MustCompile(`\s+#\s.*$`)
)

// repo is the repository's root, relative to this package.
const repo = ".."

// pages are README.md and the pages of docs/.
func pages(t *testing.T) []string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(repo, "README.md")}, found...)
}

// blocks reads the fenced blocks of page.
func blocks(t *testing.T, page string) []block {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rel, _ := filepath.Rel(repo, page)
	var out []block
	var cur *block
	prev := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &block{page: filepath.ToSlash(rel), line: n, lang: strings.TrimSpace(strings.TrimPrefix(line, "```"))}
			if m := markerLine.FindStringSubmatch(prev); m != nil {
				cur.marker = m[1]
			}
		case cur != nil && strings.HasPrefix(line, "```"):
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
		prev = line
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Errorf("%s: the block is never closed", cur)
	}
	return out
}

// allBlocks are the blocks of every page.
func allBlocks(t *testing.T) []block {
	var out []block
	for _, p := range pages(t) {
		out = append(out, blocks(t, p)...)
	}
	return out
}

// commandLines are a shell block's command lines: comments and blank lines left out, a
// trailing comment cut.
func commandLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if loc := trailingComment.FindStringIndex(line); loc != nil {
			line = line[:loc[0]]
		}
		out = append(out, line)
	}
	return out
}

// goTool is the go command this test runs under.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command")
	}
	return p
}
