package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rookgo/rookgo/schemas"
)

// schemaCmd writes the profile and scenario schemas where an editor can read them offline:
// the module's .rookgo/schemas (where the files init writes point), or -o.
func schemaCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen schema", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "the folder to write profile.schema.json and scenario.schema.json into (default "+schemas.Dir+" at the module root)")
	rootFlag := fs.String("root", "", "module root (default: the directory of the go.mod above the working directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: rookgen schema [-o DIR] [-root dir]")
		return 2
	}
	dir := *out
	if dir == "" {
		root, err := moduleRoot(*rootFlag)
		if err != nil {
			fmt.Fprintf(stderr, "rookgen schema: %v\n", err)
			return 1
		}
		dir = filepath.Join(root, filepath.FromSlash(schemas.Dir))
	}
	if err := schemas.Write(dir); err != nil {
		fmt.Fprintf(stderr, "rookgen schema: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", filepath.Join(dir, "profile.schema.json"), filepath.Join(dir, "scenario.schema.json"))
	return 0
}
