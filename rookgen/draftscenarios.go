package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/rookgen/internal/draft"
)

// draftCmd drafts what a team writes by hand from what it already has: rookgen draft
// scenarios AGENT (-from FILE|URL | -prompt TEXT) asks a model for scenarios of a feature
// document, checks every one (the scenario parser and schema) and writes them as new files,
// marked as drafts that a run leaves out until a person has read them.
func draftCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen draft scenarios", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "the document to read: a file, or an http(s) URL fetched as init --from does")
	prompt := fs.String("prompt", "", "the feature in words, instead of a document")
	most := fs.Int("n", 5, "the most scenarios to draft")
	rootFlag := fs.String("root", "", "module root (default: the directory of the go.mod above the working directory)")
	rest := args
	if len(rest) > 0 && rest[0] == "scenarios" {
		rest = rest[1:]
	} else if len(rest) == 0 || !strings.HasPrefix(rest[0], "-") {
		fmt.Fprintln(stderr, "usage: rookgen draft scenarios <agent> (-from FILE|URL | -prompt TEXT) [-n 5] [-root dir]")
		return 2
	}
	agent := ""
	if len(rest) > 0 && len(rest[0]) > 0 && rest[0][0] != '-' {
		agent, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return 2
	}
	if agent == "" || fs.NArg() > 0 || (*from == "") == (*prompt == "") || *most < 1 || *most > 50 {
		fmt.Fprintln(stderr, "usage: rookgen draft scenarios <agent> (-from FILE|URL | -prompt TEXT) [-n 5 (1 to 50)] [-root dir]")
		return 2
	}
	root, err := moduleRoot(*rootFlag)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen draft scenarios: %v\n", err)
		return 1
	}
	dir := filepath.Join(root, "scenarios", agent)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		fmt.Fprintf(stderr, "rookgen draft scenarios: scenarios/%s is not a folder: start the agent with rookgen init %s\n", agent, agent)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	name, text, source := "the prompt", *prompt, ""
	if *from != "" {
		data, mediaType, err := draft.Load(ctx, *from)
		if err != nil {
			fmt.Fprintf(stderr, "rookgen draft scenarios: %v\n", err)
			return 1
		}
		name, text, source = *from, draft.Text(data, mediaType), *from
		if rel, err := filepath.Rel(root, *from); err == nil && filepath.IsLocal(rel) {
			source = filepath.ToSlash(rel)
		}
	}
	drafts, err := draft.Scenarios(ctx, name, text, draft.ScenarioOptions{Agent: agent, Dir: dir, Source: source,
		Tools: agentTools(root, agent), Most: *most, Model: draftModel()})
	if err != nil {
		fmt.Fprintf(stderr, "rookgen draft scenarios: %v\n", err)
		return 1
	}
	written, err := draft.Write(drafts)
	for _, f := range written {
		rel, _ := filepath.Rel(root, f)
		fmt.Fprintf(stdout, "wrote %s (a draft: excluded until a person removes excluded: true)\n", filepath.ToSlash(rel))
	}
	if err != nil {
		fmt.Fprintf(stderr, "rookgen draft scenarios: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%d draft(s) from %s; rookgen check lists the drafts, and go generate ./... makes their tests (skipped while excluded)\n", len(written), shown(name, 200))
	return 0
}

// agentTools are the tools the agent's profiles list, for the model to name.
func agentTools(root, agent string) []string {
	files, _ := filepath.Glob(filepath.Join(root, "profiles", agent, "*.yaml")) // the pattern is well formed
	var tools []string
	for _, f := range files {
		p, err := spec.LoadProfile(f, filepath.Dir(f))
		if err != nil {
			continue
		}
		for _, t := range p.Tools {
			if !slices.Contains(tools, t) {
				tools = append(tools, t)
			}
		}
	}
	return tools
}
