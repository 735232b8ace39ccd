package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rookgo/rookgo/rookgen/internal/draft"
	"github.com/rookgo/rookgo/rookgen/internal/gen"
)

// checkCmd is rookgen check: it reads and validates every profile and scenario, with the
// file:line:column errors generation gives, and writes and runs nothing. (rookgen -check
// is the other question: whether the generated files are up to date.)
func checkCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	strict := fs.Bool("strict", false, "treat warnings (ignored files and keys) as errors")
	lenient := fs.Bool("lenient", false, "keep a scenario key that reads like a misspelt one (forbidden_text) as a warning, not an error")
	rootFlag := fs.String("root", "", "module root (default: the directory of the go.mod above the working directory)")
	signals := fs.Bool("signals", false, "also print how each red-team signal is read, one line each")
	verbose := fs.Bool("v", false, "also name each profile's settings (env entries with no secret: key that are not credentials)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rookgen check: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	root, err := moduleRoot(*rootFlag)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen check: %v\n", err)
		return 1
	}
	agents, err := gen.Load(root)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen check: %v\n", err)
		return 1
	}
	if typos := gen.Typos(root, agents); len(typos) > 0 && !*lenient {
		for _, ty := range typos {
			fmt.Fprintf(stderr, "rookgen check: %s\n", ty)
		}
		fmt.Fprintln(stderr, "rookgen check: a key that reads like a misspelt one is refused; run with -lenient to keep it as a warning")
		return 1
	} else if warn(stderr, "rookgen check", typos, *strict) {
		return 1
	}
	if warn(stderr, "rookgen check", gen.Lint(root, agents), *strict) {
		return 1
	}
	if *verbose {
		for _, line := range gen.Settings(root, agents) {
			fmt.Fprintln(stdout, "rookgen check: "+line)
		}
	}
	if *signals {
		for _, line := range gen.Signals(agents) {
			fmt.Fprintln(stdout, line)
		}
	}
	var profiles, scenarios int
	var drafts []string
	for _, a := range agents {
		profiles += len(a.Profiles)
		scenarios += len(a.Scenarios)
		for _, sc := range a.Scenarios {
			if sc.Excluded && slices.Contains(sc.Tags, draft.DraftTag) {
				drafts = append(drafts, a.Name+"/"+sc.ID)
			}
		}
	}
	if len(drafts) > 0 {
		fmt.Fprintf(stdout, "rookgen check: %d draft(s) a model wrote, left out of every run until a person reads each and removes its excluded: true: %s\n",
			len(drafts), strings.Join(drafts, ", "))
	}
	fmt.Fprintf(stdout, "rookgen check: %d profile(s) and %d scenario(s) of %d agent(s) are valid\n", profiles, scenarios, len(agents))
	return 0
}
