package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/rookgo/rookgo/internal/report"
)

// gateCmd fails a change only on a significant regression: the scenarios the run and its
// baseline both decided, paired, with McNemar's exact test over those whose status flipped.
// A single flip is noise; many one way is not.
func gateCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen gate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	choice := chooseRun(fs)
	base := fs.String("base", "", "the baseline run (default: the profile's last complete run)")
	maxRegressions := fs.Int("max-regressions", 0, "regressions (pass to fail) allowed before the test decides")
	alpha := fs.Float64("alpha", 0.05, "the significance level: a regression whose p-value is under it fails the gate")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || *alpha <= 0 || *alpha >= 1 || *maxRegressions < 0 {
		fmt.Fprintln(stderr, "usage: rookgen gate [-run ID | -agent A [-profile P]] [-base ID] [-max-regressions N] [-alpha 0.05] [-dir records]")
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "rookgen gate: %v\n", err)
		return 1
	}
	runDir, err := choice.find()
	if err != nil {
		return fail(err)
	}
	baseDir, err := baseRun(runDir, *base)
	if err != nil {
		return fail(err)
	}
	if baseDir == "" {
		return fail(errors.New("no baseline run to compare with: name one with -base"))
	}
	r, err := report.Build(runDir, baseDir)
	if err != nil {
		return fail(err)
	}
	r.Close() // the gate reads the changes, not the rows
	fails, says := r.Changes.Gate(*maxRegressions, *alpha)
	code := 0
	if fails {
		code = 1
	}
	line := fmt.Sprintf("rookgen gate: run %s against %s: %s", r.RunID, report.BaseNote(runDir, baseDir, *base != ""), says)
	fmt.Fprintln(stdout, line)
	_ = appendSummary([]byte(line + "\n\n")) // the summary is a courtesy; the exit code decides
	return code
}
