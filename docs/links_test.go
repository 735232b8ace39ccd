package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)
)

// slug is a heading's anchor as GitHub makes it: lower case, spaces to hyphens, and
// punctuation other than hyphens and underscores left out.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the anchors of a page's headings (outside code blocks).
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil && !in {
			out[slug(strings.ReplaceAll(m[1], "`", ""))] = true
		}
	}
	return out
}

// TestLinksResolve: every link of the pages to a file of the repository names one that
// exists, and every anchor a heading of its page.
func TestLinksResolve(t *testing.T) {
	n := 0
	for _, page := range pages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repo, page)
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				n++
				file, anchor, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: %s: no such file", filepath.ToSlash(rel), i+1, target)
					continue
				}
				if anchor == "" {
					continue
				}
				text, err := os.ReadFile(path)
				if err != nil {
					t.Errorf("%s:%d: %s: %v", filepath.ToSlash(rel), i+1, target, err)
					continue
				}
				if !anchors(string(text))[anchor] {
					t.Errorf("%s:%d: %s: no heading makes that anchor", filepath.ToSlash(rel), i+1, target)
				}
			}
		}
	}
	t.Logf("%d links checked", n)
}
