package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// prune removes old run folders: for each agent and profile, all but the newest keep runs
// go, never the newest one, and never one another process holds (its run.lock). Runs are
// ordered by what their folders say (store.Seen), never followed through a link, and -n
// writes nothing.
func prune(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen prune", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keep := fs.Int("keep", 10, "runs to keep per profile (at least 1)")
	dir := fs.String("dir", "", "records root (default .rook/runs at the module root)")
	dry := fs.Bool("n", false, "say what would be removed, remove nothing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *keep < 1 {
		fmt.Fprintln(stderr, "rookgen prune: -keep must be at least 1: the newest run of a profile is always kept")
		return 2
	}
	root, err := recordsRoot(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen prune: %v\n", err)
		return 1
	}
	// Newest first; a folder that is not a whole run is left for a person to look at.
	byProfile := map[string][]string{}
	for _, run := range store.ListRuns(root, "") {
		k := run.Agent + "/" + run.ProfileID
		byProfile[k] = append(byProfile[k], run.Dir)
	}
	status := 0
	keys := make([]string, 0, len(byProfile))
	for k := range byProfile {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		dirs := byProfile[k]
		if len(dirs) <= *keep {
			continue
		}
		for _, d := range dirs[*keep:] {
			if *dry {
				// A dry run writes nothing, not even a lock.
				if held, err := store.Held(d); err != nil || held {
					fmt.Fprintf(stdout, "rookgen prune: would keep %s (held by another process, or its lock is not a file: %v)\n", d, err)
				} else {
					fmt.Fprintf(stdout, "rookgen prune: would remove %s\n", d)
				}
				continue
			}
			unlock, err := store.Lock(d)
			if err != nil {
				fmt.Fprintf(stderr, "rookgen prune: kept %s: %v\n", d, err)
				continue
			}
			err = os.RemoveAll(d)
			unlock()
			if err != nil {
				fmt.Fprintf(stderr, "rookgen prune: %v\n", err)
				status = 1
				continue
			}
			fmt.Fprintf(stdout, "rookgen prune: removed %s (%s)\n", d, k)
		}
	}
	return status
}

// recordsRoot is the records root a subcommand's -dir names: dir as given (relative to the
// working directory), or .rook/runs at the module root.
func recordsRoot(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	mod, _, err := spec.ModuleRootOfWorkingDir()
	if err != nil {
		return "", err
	}
	return spec.RecordsRoot(mod, ""), nil
}
