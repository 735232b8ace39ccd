package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/rookgo/rookgo/internal/merge"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/store"
)

// reportCmd renders a run's records; it never calls a hook. In GitHub Actions
// (GITHUB_STEP_SUMMARY set) the markdown is also appended to the step's summary.
func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runID := fs.String("run", "", "the run (default: the newest)")
	agent := fs.String("agent", "", "the newest run of this agent")
	profile := fs.String("profile", "", "the newest run of this profile (with -agent)")
	base := fs.String("base", "", "compare with this run (default: the profile's previous run)")
	format := fs.String("format", "md", "md, json, yaml or html")
	out := fs.String("o", "", "write to this file (default: standard output)")
	dir := fs.String("dir", "", "records root (default .rook/runs at the module root)")
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
	root, err := recordsRoot(*dir)
	if err != nil {
		return fail(err)
	}
	var runDir string
	if *doMerge {
		if len(dirs) == 0 {
			fmt.Fprintln(stderr, "rookgen report: -merge needs the folders of the shards, for example rookgen report -merge shards/*")
			return 2
		}
		groups, err := merge.Find(dirs, *runID)
		if err != nil {
			return fail(err)
		}
		var merged []string
		for _, shards := range groups {
			if runDir, err = merge.Merge(shards, root, time.Now()); err != nil {
				return fail(err)
			}
			fmt.Fprintf(stderr, "rookgen report: merged %d shards into %s\n", len(shards), runDir)
			merged = append(merged, runDir)
		}
		if len(merged) > 1 {
			// Several runs (agents, or profiles of one): each is a whole run now, with its
			// report.yaml and report.html; the step summary gets each one's markdown.
			return reportEach(merged, stdout, fail)
		}
	} else if *runID != "" {
		matches, _ := filepath.Glob(filepath.Join(root, "*", *runID, "run.yaml"))
		if *agent != "" {
			matches, _ = filepath.Glob(filepath.Join(root, *agent, *runID, "run.yaml"))
		}
		if !store.ValidRunID(*runID) || len(matches) != 1 {
			return fail(fmt.Errorf("-run=%s names no single run under %s (give -agent too?)", *runID, root))
		}
		runDir = filepath.Dir(matches[0])
	} else if runDir, err = report.Newest(root, *agent, *profile); err != nil {
		return fail(err)
	}
	baseDir := report.Previous(runDir)
	if *base != "" {
		baseDir = filepath.Join(filepath.Dir(runDir), *base)
		if _, err := os.Stat(filepath.Join(baseDir, "run.yaml")); !store.ValidRunID(*base) || err != nil {
			return fail(fmt.Errorf("-base=%s names no run of this agent", *base))
		}
	}
	r, err := report.Build(runDir, baseDir)
	if err != nil {
		return fail(err)
	}
	var b bytes.Buffer
	switch *format {
	case "md":
		err = r.Markdown(&b)
	case "json":
		err = r.JSON(&b)
	case "yaml":
		err = r.YAML(&b)
	case "html":
		err = r.HTML(&b)
	default:
		return fail(fmt.Errorf("-format=%s: want md, json, yaml or html", *format))
	}
	if err != nil {
		return fail(err)
	}
	if summary := os.Getenv("GITHUB_STEP_SUMMARY"); summary != "" {
		md := b.Bytes()
		if *format != "md" {
			var mb bytes.Buffer
			if err := r.Markdown(&mb); err != nil {
				return fail(err)
			}
			md = mb.Bytes()
		}
		if err := appendSummary(summary, md); err != nil {
			return fail(err)
		}
	}
	if *out == "" {
		_, err = stdout.Write(b.Bytes())
	} else {
		err = store.WriteFile(*out, b.Bytes())
	}
	if err != nil {
		return fail(err)
	}
	return 0
}

// reportEach lists merged runs and appends each one's markdown to GitHub's step summary.
func reportEach(dirs []string, stdout io.Writer, fail func(error) int) int {
	for _, d := range dirs {
		fmt.Fprintf(stdout, "%s (report.html beside it; rookgen report -agent %s -run %s renders it)\n", d, filepath.Base(filepath.Dir(d)), filepath.Base(d))
		summary := os.Getenv("GITHUB_STEP_SUMMARY")
		if summary == "" {
			continue
		}
		r, err := report.Build(d, report.Previous(d))
		if err != nil {
			return fail(err)
		}
		var mb bytes.Buffer
		if err := r.Markdown(&mb); err != nil {
			return fail(err)
		}
		if err := appendSummary(summary, mb.Bytes()); err != nil {
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

// appendSummary appends the markdown md to GitHub's step summary file at path.
func appendSummary(path string, md []byte) error {
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
