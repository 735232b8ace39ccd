package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watch regenerates whenever a YAML file under profiles/ or scenarios/ changes, until ctx
// ends, so that an IDE run after an edit finds its generated test fresh. Changes are
// gathered for a short while, then generated once.
func watch(ctx context.Context, root string, stdout, stderr io.Writer) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer func() { _ = w.Close() }() // the watch is over
	add := func() {
		for _, top := range []string{"profiles", "scenarios"} {
			dirs, _ := filepath.Glob(filepath.Join(root, top, "*"))
			for _, d := range append(dirs, filepath.Join(root, top)) {
				if info, err := os.Stat(d); err == nil && info.IsDir() {
					_ = w.Add(d) // added again when it reappears; a missing one is not watched
				}
			}
		}
	}
	add()
	generate(root, stdout, stderr)
	fmt.Fprintln(stdout, "rookgen: watching profiles/ and scenarios/ (Ctrl-C to stop)")
	var pending <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if strings.HasSuffix(ev.Name, ".yaml") || strings.HasSuffix(ev.Name, ".yml") || ev.Op&fsnotify.Create != 0 {
				pending = time.After(150 * time.Millisecond)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			fmt.Fprintf(stderr, "rookgen: watch: %v\n", err)
		case <-pending:
			pending = nil
			add() // new agent folders
			generate(root, stdout, stderr)
		}
	}
}

// generate writes what plan says is stale, reporting problems without stopping the watch.
func generate(root string, stdout, stderr io.Writer) {
	changes, warnings, err := plan(root, false)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen: %v\n", err)
		return
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "rookgen: warning: %s\n", w)
	}
	if err := apply(root, changes, stdout); err != nil {
		fmt.Fprintf(stderr, "rookgen: %v\n", err)
	}
}
