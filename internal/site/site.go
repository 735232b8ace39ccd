// Package site is the view over every run under a records root: the agents; per agent its
// profiles, features, scenarios (with filters and each one's history across runs) and
// runs; and each run's report page. The same pages are served read-only on the loopback
// interface (rookgen ui) and written as static files (rookgen report -site). They are
// made from the records alone, with html/template: nothing an agent or a hook wrote is
// ever active in them.
package site

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rookgo/rookgo/internal/page"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/store"
)

//go:embed assets
var assets embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"class": page.StatusClass,
	"join":  strings.Join,
	"lower": strings.ToLower,
}).ParseFS(assets, "assets/*.html"))

// Site is the pages of the runs under Root; Module, when set, is the module root, whose
// scenario files add the scenarios never run and whose features/<agent>/*.yaml add the
// features no scenario tests.
type Site struct {
	Root   string
	Module string

	// cache keeps each agent's view while Write writes every page; nil while serving,
	// where each page reads the records as they are.
	cache map[string]*agentView
}

// ErrNotFound is the error of a page the site does not have.
var ErrNotFound = errors.New("no such page")

// Pages lists every page of the site, as slash paths ("index.html", "fake/runs.html").
func (s *Site) Pages() []string {
	out := []string{"index.html", "site.css", "site.js"}
	for _, a := range s.agentNames() {
		out = append(out, a+"/index.html", a+"/scenarios.html", a+"/runs.html")
		for _, r := range store.ListRuns(s.Root, a) {
			if record.ValidID(r.ID) {
				out = append(out, a+"/run/"+r.ID+".html")
			}
		}
		h := s.agent(a)
		for _, sc := range h.Scenarios {
			out = append(out, a+"/scenario/"+sc.ID+".html")
		}
	}
	return out
}

// Render writes the page at path (as Pages names it) to w.
func (s *Site) Render(w io.Writer, path string) error {
	parts := strings.Split(path, "/")
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsAny(p, `\`) {
			return ErrNotFound
		}
	}
	switch {
	case path == "index.html":
		return s.exec(w, "index.html", "", struct{ Agents []string }{s.agentNames()})
	case path == "site.css" || path == "site.js":
		b, err := assets.ReadFile("assets/" + path)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	case len(parts) < 2 || !record.ValidID(parts[0]) || !s.hasAgent(parts[0]):
		return ErrNotFound
	}
	agent := parts[0]
	switch {
	case len(parts) == 2 && parts[1] == "index.html":
		return s.exec(w, "agent.html", "../", s.agent(agent))
	case len(parts) == 2 && (parts[1] == "scenarios.html" || parts[1] == "runs.html"):
		return s.exec(w, parts[1], "../", s.agent(agent))
	case len(parts) == 3 && parts[1] == "scenario":
		return s.scenarioPage(w, agent, strings.TrimSuffix(parts[2], ".html"))
	case len(parts) == 3 && parts[1] == "run":
		return s.runPage(w, agent, strings.TrimSuffix(parts[2], ".html"))
	}
	return ErrNotFound
}

func (s *Site) hasAgent(name string) bool {
	for _, a := range s.agentNames() {
		if a == name {
			return true
		}
	}
	return false
}

// exec runs one template; up is the way from the page to the site's root ("../").
func (s *Site) exec(w io.Writer, name, up string, data any) error {
	return pages.ExecuteTemplate(w, name, struct {
		Up   string
		Data any
	}{up, data})
}

func (s *Site) scenarioPage(w io.Writer, agent, id string) error {
	if !record.ValidID(id) {
		return ErrNotFound
	}
	v := s.agent(agent)
	for _, sc := range v.Scenarios {
		if sc.ID == id {
			return s.exec(w, "scenario.html", "../../", struct {
				Agent    string
				Scenario scenarioRow
			}{agent, sc})
		}
	}
	return ErrNotFound
}

// runPage is the run's report page, as rookgen report -format html writes it, compared
// with the profile's previous run.
func (s *Site) runPage(w io.Writer, agent, id string) error {
	dir := filepath.Join(s.Root, agent, id)
	if !store.ValidRunID(id) {
		return ErrNotFound
	}
	if _, err := os.Stat(filepath.Join(dir, "run.yaml")); err != nil {
		return ErrNotFound
	}
	r, err := report.Build(dir, report.Previous(dir))
	if err != nil {
		return fmt.Errorf("run %s: %w", id, err)
	}
	defer r.Close()
	return page.Write(w, r)
}

// Write writes every page under dir, for a CI artifact: open dir/index.html.
func (s *Site) Write(dir string) error {
	s.cache = map[string]*agentView{}
	defer func() { s.cache = nil }()
	for _, p := range s.Pages() {
		err := store.WriteFileFrom(filepath.Join(dir, filepath.FromSlash(p)), func(w io.Writer) error { return s.Render(w, p) })
		if err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}
