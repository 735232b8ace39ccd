package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/page"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// reportCmd renders a run's records; it never calls a hook. In GitHub Actions
// (GITHUB_STEP_SUMMARY set) the markdown is also appended to the step's summary.
func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	choice := chooseRun(fs)
	base := fs.String("base", "", "compare with this run (default: the profile's last complete run)")
	format := fs.String("format", "md", "md, json, yaml or html")
	out := fs.String("o", "", "write to this file (default: standard output)")
	siteDir := fs.String("site", "", "write the view of every run under the records root (rookgen ui's pages) as static files into this folder, and nothing else")
	doMerge := fs.Bool("merge", false, "merge the shards of one run (the run folders under the DIR arguments, such as CI artifacts) into the records root, then report it")
	dirs, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "rookgen report: %v\n", err)
		return 1
	}
	if len(dirs) > 0 && !*doMerge {
		fmt.Fprintf(stderr, "rookgen report: unexpected arguments %q (folders to merge go with -merge)\n", dirs)
		return 2
	}
	root, err := recordsRoot(*choice.dir)
	if err != nil {
		return fail(err)
	}
	if *siteDir != "" {
		s := newSite(*choice.dir)
		s.Root = root
		if err := s.Write(*siteDir); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "rookgen report: wrote the view of %s into %s; open %s\n", root, *siteDir, filepath.Join(*siteDir, "index.html"))
		return 0
	}
	var runDir string
	if *doMerge {
		if len(dirs) == 0 {
			fmt.Fprintln(stderr, "rookgen report: -merge needs the folders of the shards, for example rookgen report -merge shards/*")
			return 2
		}
		merged, err := mergeShards(dirs, *choice.runID, root, stderr)
		if err != nil {
			return fail(err)
		}
		if len(merged) > 1 {
			// Several runs (agents, or profiles of one): each is a whole run now, with its
			// report.yaml and report.html; the step summary gets each one's markdown.
			return reportEach(merged, stdout, fail)
		}
		runDir = merged[0]
	} else if runDir, err = findRun(root, *choice.runID, *choice.agent, *choice.profile); err != nil {
		return fail(err)
	}
	r, err := reportRun(runDir, *base, *format, *out, stdout)
	if err != nil {
		return fail(err)
	}
	if *doMerge && r.Totals.Decided == 0 && r.Metrics.CriteriaDecided == 0 {
		// The shards each left this to the merged run: a run that decided nothing fails.
		fmt.Fprintf(stderr, "rookgen report: run %s decided nothing: no criterion of any shard passed or failed\n", r.RunID)
		return 1
	}
	return 0
}

// reportRun builds the report of the run in runDir against its baseline (base, or the
// profile's last complete run), and writes it in format to out (stdout when ""), and its
// markdown to the step summary. The report goes to its file as it is rendered (the page of
// a 20,000-scenario run is 21 MB: rendered into memory first, rookgen report peaked at 93
// MB); the file appears whole or not at all.
func reportRun(runDir, base, format, out string, stdout io.Writer) (*report.Report, error) {
	if !slices.Contains(formats, format) {
		return nil, fmt.Errorf("-format=%s: want md, json, yaml or html", format)
	}
	baseDir, err := baseRun(runDir, base)
	if err != nil {
		return nil, err
	}
	r, err := report.Build(runDir, baseDir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	write := func(w io.Writer) error { return render(w, r, format) }
	if out == "" {
		bw := bufio.NewWriter(stdout)
		err = write(bw)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
	} else {
		err = store.WriteFileFrom(out, write)
	}
	if err != nil {
		return r, err
	}
	return r, stepSummary(r)
}

// mergeShards merges the shards of each run found under dirs into the records root, and
// returns the merged runs' folders.
func mergeShards(dirs []string, runID, root string, stderr io.Writer) ([]string, error) {
	groups, err := findShards(dirs, runID)
	if err != nil {
		return nil, err
	}
	var merged []string
	for _, shards := range groups {
		runDir, err := mergeRun(shards, root, time.Now(), suiteIDs())
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(stderr, "rookgen report: merged %d shards into %s\n", len(shards), runDir)
		merged = append(merged, runDir)
	}
	return merged, nil
}

// suiteIDs reads an agent's scenario ids from the files of the module around the working
// directory, for -merge to refuse a shard that names others. Outside a module, or for an
// agent the module has no scenarios of, it knows nothing, and the ids are only checked to
// be ids.
func suiteIDs() func(agent string) ([]string, bool) {
	mod, _, err := spec.ModuleRootOfWorkingDir()
	return func(agent string) ([]string, bool) {
		if err != nil {
			return nil, false
		}
		files, _ := filepath.Glob(filepath.Join(mod, "scenarios", agent, "*.yaml"))
		ids := make([]string, len(files))
		for i, f := range files {
			ids[i] = strings.TrimSuffix(filepath.Base(f), ".yaml")
		}
		return ids, len(ids) > 0
	}
}

// findRun is the run -run names (of -agent, when given), or the newest run of the agent
// and profile.
// baseRun is the run to compare runDir with: the one -base names (a run of the same agent),
// else the profile's last complete run ("" when there is none).
func baseRun(runDir, base string) (string, error) {
	if base == "" {
		return report.Previous(runDir), nil
	}
	dir := filepath.Join(filepath.Dir(runDir), base)
	if _, err := os.Stat(filepath.Join(dir, "run.yaml")); !store.ValidRunID(base) || err != nil {
		return "", fmt.Errorf("-base=%s names no run of this agent", base)
	}
	return dir, nil
}

// runChoice are the flags that choose one run of the records, as report, gate and attest
// take them.
type runChoice struct{ runID, agent, profile, dir *string }

func chooseRun(fs *flag.FlagSet) runChoice {
	return runChoice{
		runID:   fs.String("run", "", "the run (default: the newest)"),
		agent:   fs.String("agent", "", "the newest run of this agent"),
		profile: fs.String("profile", "", "the newest run of this profile (with -agent)"),
		dir:     fs.String("dir", "", "records root (default .rook/runs at the module root)"),
	}
}

// find is the folder of the run the flags choose.
func (c runChoice) find() (string, error) {
	root, err := recordsRoot(*c.dir)
	if err != nil {
		return "", err
	}
	return findRun(root, *c.runID, *c.agent, *c.profile)
}

func findRun(root, runID, agent, profile string) (string, error) {
	if runID == "" {
		return report.Newest(root, agent, profile)
	}
	matches, _ := filepath.Glob(filepath.Join(root, "*", runID, "run.yaml"))
	if agent != "" {
		matches, _ = filepath.Glob(filepath.Join(root, agent, runID, "run.yaml"))
	}
	if !store.ValidRunID(runID) || len(matches) != 1 {
		return "", fmt.Errorf("-run=%s names no single run under %s (give -agent too?)", runID, root)
	}
	return filepath.Dir(matches[0]), nil
}

// formats are what -format takes.
var formats = []string{"md", "json", "yaml", "html"}

// render writes the report in format to w.
func render(w io.Writer, r *report.Report, format string) error {
	switch format {
	case "json":
		return r.JSON(w)
	case "yaml":
		return r.YAML(w)
	case "html":
		return page.Write(w, r)
	}
	return r.Markdown(w)
}

// stepSummary appends the report's markdown to GitHub's step summary when
// GITHUB_STEP_SUMMARY is set.
func stepSummary(r *report.Report) error {
	if summaryPath() == "" {
		return nil
	}
	var md bytes.Buffer
	if err := r.Markdown(&md); err != nil {
		return err
	}
	return appendSummary(md.Bytes())
}

// reportEach lists merged runs and appends each one's markdown to GitHub's step summary.
func reportEach(dirs []string, stdout io.Writer, fail func(error) int) int {
	for _, d := range dirs {
		fmt.Fprintf(stdout, "%s (report.html beside it; rookgen report -agent %s -run %s renders it)\n", d, filepath.Base(filepath.Dir(d)), filepath.Base(d))
		if summaryPath() == "" {
			continue
		}
		r, err := report.Build(d, report.Previous(d))
		if err != nil {
			return fail(err)
		}
		err = stepSummary(r)
		r.Close()
		if err != nil {
			return fail(err)
		}
	}
	return 0
}

// parseInterleaved parses flags that may come before, between or after the positional
// arguments (rookgen report -merge a b -format html), and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// summaryPath is GitHub's step summary file, "" outside GitHub Actions.
func summaryPath() string { return os.Getenv("GITHUB_STEP_SUMMARY") }

// appendSummary appends the markdown md to GitHub's step summary; nothing outside GitHub
// Actions.
func appendSummary(md []byte) error {
	path := summaryPath()
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	_, werr := f.Write(md)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", werr)
	}
	return nil
}
