package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/spec"
)

// calibrateCmd measures the model judge against people: labels/<agent>.yaml paired with
// the judge's rows in the records, per criterion and overall.
func calibrateCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	agent := fs.String("agent", "", "the agent whose labels (labels/<agent>.yaml) to measure")
	target := fs.Float64("target", 0.9, "the agreement to reach: the report names the lowest judge confidence that reaches it")
	dir := fs.String("dir", "", "records root (default .rook/runs at the module root)")
	rootFlag := fs.String("root", "", "module root (default: the directory of the go.mod above the working directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *agent == "" || fs.NArg() > 0 || *target <= 0 || *target > 1 {
		fmt.Fprintln(stderr, "usage: rookgen calibrate -agent A [-target 0.9] [-dir records] [-root dir]")
		return 2
	}
	root := *rootFlag
	if root == "" {
		mod, _, err := spec.ModuleRootOfWorkingDir()
		if err != nil {
			fmt.Fprintf(stderr, "rookgen calibrate: %v\n", err)
			return 1
		}
		root = mod
	}
	records := *dir
	if records == "" {
		records = spec.RecordsRoot(root, "")
	}
	path := modeljudge.LabelsPath(root, *agent)
	labels, lerr := modeljudge.LoadLabels(path)
	pairs, perr := modeljudge.PairLabels(records, *agent, path, labels)
	status := 0
	for _, err := range []error{lerr, perr} {
		if err != nil {
			fmt.Fprintf(stderr, "rookgen calibrate: %v\n", err)
			status = 1
		}
	}
	if len(pairs) == 0 {
		fmt.Fprintf(stderr, "rookgen calibrate: no labelled row of %s to measure: label judged rows in %s (report.html offers the line to copy for each)\n", *agent, path)
		return 1
	}
	if err := modeljudge.WriteCalibration(stdout, pairs, *target); err != nil {
		fmt.Fprintf(stderr, "rookgen calibrate: %v\n", err)
		return 1
	}
	return status
}
