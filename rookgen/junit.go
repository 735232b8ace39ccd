package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rookgo/rookgo/internal/junit"
)

// junitCmd is rookgen junit: it writes a JUnit XML report from a go test -json stream
// (a file, or stdin), in memory that does not grow with the suite, for suites whose
// JUnit a general-purpose reader would hold whole. It exits 1 when the stream shows a
// failure, a package that did not build or never ended, or no package at all, so that a
// pipeline without pipefail still fails.
func junitCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen junit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "junit.xml", "the JUnit file to write (- for stdout)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	in := io.Reader(os.Stdin)
	name := "stdin"
	switch fs.NArg() {
	case 0:
	case 1:
		if fs.Arg(0) != "-" {
			f, err := os.Open(fs.Arg(0))
			if err != nil {
				fmt.Fprintf(stderr, "rookgen junit: %v\n", err)
				return 1
			}
			defer func() { _ = f.Close() }() // read only
			in, name = f, fs.Arg(0)
		}
	default:
		fmt.Fprintln(stderr, "rookgen junit: give at most one go test -json file (default: stdin)")
		return 2
	}
	sum, err := writeJUnit(in, *out, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen junit: %s: %v\n", name, err)
		return 1
	}
	fmt.Fprintf(stderr, "rookgen junit: %d test(s), %d failed, %d skipped, in %d package(s)", sum.Tests, sum.Failed, sum.Skipped, sum.Packages)
	if sum.Errors > 0 {
		fmt.Fprintf(stderr, "; %d package(s) did not build or never ended", sum.Errors)
	}
	if sum.Malformed > 0 {
		fmt.Fprintf(stderr, "; %d line(s) of the stream were not go test -json events (build output?)", sum.Malformed)
	}
	fmt.Fprintf(stderr, ": %s\n", *out)
	if sum.Failed > 0 || sum.Errors > 0 {
		return 1
	}
	return 0
}

// writeJUnit writes the report to path (stdout for -), whole or not at all.
func writeJUnit(in io.Reader, path string, stdout io.Writer) (junit.Summary, error) {
	opts := junit.Options{GoVersion: goVersion()}
	if path == "-" {
		return junit.Write(in, stdout, opts)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".junit-*.xml")
	if err != nil {
		return junit.Summary{}, err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone once renamed
	sum, err := junit.Write(in, tmp, opts)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return sum, err
	}
	return sum, os.Rename(tmp.Name(), path)
}

// goVersion is the go.version property, as gotestsum gives it: GOVERSION, else what the
// go command on PATH says.
func goVersion() string {
	if v, ok := os.LookupEnv("GOVERSION"); ok {
		return v
	}
	out, err := exec.Command("go", "version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "go version ")
}
