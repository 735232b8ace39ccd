// Package page renders a run's report as one self-contained HTML page. It is its own
// package so that only the binaries that write the page link html/template: a test binary
// has it when its suite imports rooktest/page.
package page

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/store"
)

//go:embed assets
var assets embed.FS

var page = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"class":     StatusClass,
	"highlight": highlight,
	"join":      strings.Join,
}).ParseFS(assets, "assets/page.html"))

// view is what the page's template reads: the report, and what the page adds to it.
type view struct {
	*report.Report
	Rate string
	CSS  template.CSS
	JS   template.JS
}

// Write writes the report r as one self-contained page: no network, no CDN, readable from
// file://. Every byte an agent or a hook wrote is escaped by html/template; the quoted
// evidence is marked in place in the conversation.
func Write(w io.Writer, r *report.Report) error {
	css, err := assets.ReadFile("assets/page.css")
	if err != nil {
		return err
	}
	js, err := assets.ReadFile("assets/page.js")
	if err != nil {
		return err
	}
	rate := "n/a"
	if r.Totals.Decided > 0 {
		rate = fmt.Sprintf("%.0f%%", r.Totals.PassRate*100)
	}
	err = page.Execute(w, view{r, rate, template.CSS(css), template.JS(js)})
	return errors.Join(err, r.Err())
}

// FirstFailure is the report's first failed criterion, which the page leads with; nil
// when none failed.
func (v view) FirstFailure() *report.Failure {
	f, ok := v.Failed.First()
	if !ok {
		return nil
	}
	return &f
}

// StatusClass is a status's CSS class in the run's page and in the view (internal/site):
// pass, fail, utv, none for no status (a run that did not include the scenario), other for
// the rest (not judged, untrusted, not run).
func StatusClass(v any) string {
	switch fmt.Sprint(v) {
	case string(record.Pass):
		return "pass"
	case string(record.Fail):
		return "fail"
	case string(record.UnableToVerify):
		return "utv"
	case "":
		return "none"
	}
	return "other"
}

var quotedRE = regexp.MustCompile(`"((?:[^"\\]|\\.){8,})"`)

// quotes are the evidence quotes of a verdict's criteria, to mark in its conversation.
func quotes(v *record.Verdict) []string {
	var out []string
	for _, row := range v.Rows() {
		for _, m := range quotedRE.FindAllStringSubmatch(row.Evidence, -1) {
			q := strings.NewReplacer(`\"`, `"`, `\n`, "\n", `\\`, `\`).Replace(m[1])
			if len(q) >= 8 {
				out = append(out, q)
			}
		}
	}
	return out
}

// highlight escapes text and marks where the quotes occur in it.
func highlight(text string, quotes []string) template.HTML {
	type span struct{ at, end int }
	var marks []span
	for _, q := range quotes {
		if i := strings.Index(text, q); i >= 0 {
			marks = append(marks, span{i, i + len(q)})
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].at < marks[j].at })
	var b strings.Builder
	pos := 0
	for _, m := range marks {
		if m.at < pos {
			continue
		}
		b.WriteString(html.EscapeString(text[pos:m.at]))
		b.WriteString("<mark>" + html.EscapeString(text[m.at:m.end]) + "</mark>")
		pos = m.end
	}
	b.WriteString(html.EscapeString(text[pos:]))
	return template.HTML(b.String()) // every piece above is escaped
}

// WriteFile writes report.html into the run folder dir: the run as a page, compared with
// the profile's previous run.
func WriteFile(dir string) error {
	r, err := report.Build(dir, report.Previous(dir))
	if err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	defer r.Close()
	if err := store.WriteFileFrom(filepath.Join(dir, "report.html"), func(w io.Writer) error { return Write(w, r) }); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	return nil
}

// ScriptHash is the CSP source of the page's one inline script ('sha256-...'), for a
// server that forbids every other.
func ScriptHash() string {
	js, err := assets.ReadFile("assets/page.js")
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(js)
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}
