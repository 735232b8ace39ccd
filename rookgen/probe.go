package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// probeCmd is rookgen probe <agent>/<profile>: it calls the profile's hooks once, says what
// came back, which capabilities it observed and how to fix what broke the hook contract,
// and with -write sets the profile's capabilities to what it observed.
func probeCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	write := fs.Bool("write", false, "turn on the capabilities the hooks showed, and regenerate (only after a probe that succeeded)")
	force := fs.Bool("force", false, "with -write: also turn off declared capabilities the hooks did not show")
	rootFlag := fs.String("root", "", "module root (default: the directory of the go.mod above the working directory)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rookgen probe <agent>/<profile> [-write [-force]] [-root dir]")
		fs.PrintDefaults()
	}
	target, args := leadingArg(args)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if target == "" && fs.NArg() == 1 {
		target = fs.Arg(0)
	}
	agent, profileID, ok := strings.Cut(target, "/")
	if !ok || agent == "" || profileID == "" {
		fs.Usage()
		return 2
	}
	root, err := moduleRoot(*rootFlag)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen probe: %v\n", err)
		return 1
	}
	path := filepath.Join(root, "profiles", agent, profileID+".yaml")
	p, rep, err := probeProfile(root, agent, profileID, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen probe: %v\n", err)
		return 1
	}
	if *write {
		if !rep.OK() {
			fmt.Fprintln(stderr, "rookgen probe: -write: nothing written: the probe failed, so what it did not see says nothing about the agent; fix the hooks and probe again")
			return 1
		}
		if code := writeProbed(root, path, p.Capabilities, rep.Observed, *force, stdout, stderr); code != 0 {
			return code
		}
	}
	if !rep.OK() {
		return 1
	}
	return clearUnverified(root, path, stdout, stderr)
}

// probeProfile calls the hooks of profile agent/profileID once and prints what came back.
// An error is a profile that could not be probed: unreadable, or a variable it needs unset.
func probeProfile(root, agent, profileID string, stdout io.Writer) (*spec.Profile, *probeReport, error) {
	_, project, _ := spec.ModuleRoot(root) // ROOK_PROJECT: the module path, as a run gives it
	path := filepath.Join(root, "profiles", agent, profileID+".yaml")
	p, err := spec.LoadProfile(path, filepath.Join(root, "profiles", agent))
	if err != nil {
		return nil, nil, spec.RelErr(root, err)
	}
	if err := p.MissingEnv(os.LookupEnv); err != nil {
		return nil, nil, err
	}
	if err := store.WeakSecrets(p.SecretValues(os.Getenv)); err != nil {
		return nil, nil, fmt.Errorf("profile %s: %w", p.ID, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := probeHooks(ctx, p, probeConfig{Workspace: root, Project: project, Agent: agent, Env: os.Environ()})
	if err != nil {
		return nil, nil, err
	}
	// What the hooks printed is the agent's: a declared secret it echoes (a token quoted
	// back in a 401) is shown redacted, as the records would keep it.
	var out bytes.Buffer
	printProbe(&out, p, rep)
	_, _ = io.WriteString(stdout, secretsOf(p).Text(out.String()))
	return p, rep, nil
}

// secretsOf redacts the profile's declared secrets out of what probe and init print and
// write.
func secretsOf(p *spec.Profile) *store.Redactor { return store.NewRedactor(p.SecretValues(os.Getenv)) }

// regenerate writes the generated files again after a profile changed, naming them on out.
func regenerate(root string, out io.Writer) error {
	changes, _, err := plan(root, false)
	if err == nil {
		err = apply(root, changes, out)
	}
	if err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	return nil
}

// clearUnverified removes the header init wrote into a profile whose probe had failed,
// now that one succeeded, and regenerates.
func clearUnverified(root, path string, stdout, stderr io.Writer) int {
	cleared, err := removeUnverifiedHeader(path)
	if err == nil && cleared {
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(stdout, "removed the NOT VERIFIED header from %s: the probe succeeded\n", filepath.ToSlash(rel))
		err = regenerate(root, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rookgen probe: %v\n", err)
		return 1
	}
	return 0
}

// writeProbed writes what a successful probe observed into the profile at path and
// regenerates: a capability seen is turned on; one declared and not seen is kept unless
// force says to turn it off (one probe's turn may simply not have called a tool).
func writeProbed(root, path string, declared, seen spec.Capabilities, force bool, stdout, stderr io.Writer) int {
	caps := seen
	if !force {
		caps = spec.Capabilities{MultiTurn: seen.MultiTurn || declared.MultiTurn, Calls: seen.Calls || declared.Calls,
			Usage: seen.Usage || declared.Usage}
		for _, c := range []struct {
			name       string
			kept, seen bool
		}{{"multi_turn", declared.MultiTurn, seen.MultiTurn}, {"calls", declared.Calls, seen.Calls}, {"usage", declared.Usage, seen.Usage}} {
			if c.kept && !c.seen {
				fmt.Fprintf(stdout, "kept %s: true as declared, though this probe did not see it (-force turns it off)\n", c.name)
			}
		}
	}
	if err := writeCapabilities(path, caps); err != nil {
		fmt.Fprintf(stderr, "rookgen probe: %v\n", err)
		return 1
	}
	rel, _ := filepath.Rel(root, path)
	fmt.Fprintf(stdout, "wrote the observed capabilities into %s\n", filepath.ToSlash(rel))
	if err := regenerate(root, stdout); err != nil {
		fmt.Fprintf(stderr, "rookgen probe: %v\n", err)
		return 1
	}
	return 0
}

func printProbe(w io.Writer, p *spec.Profile, rep *probeReport) {
	fmt.Fprintf(w, "probe of profile %s (execute sent %q)\n", p.ID, probeGoal)
	for _, ph := range rep.Phases {
		status := "ok"
		if !ph.OK() {
			status = "FAILED"
		}
		took := ""
		if ph.Result != nil {
			took = fmt.Sprintf(" in %d ms", ph.Result.Duration().Milliseconds())
		}
		fmt.Fprintf(w, "\n%s: %s%s\n", ph.Phase, status, took)
		if ph.Result != nil && len(strings.TrimSpace(string(ph.Result.Stdout))) > 0 {
			fmt.Fprintf(w, "  stdout: %s\n", quoteOutput(strings.TrimSpace(string(ph.Result.Stdout)), 600))
		}
		if ph.Result != nil && strings.TrimSpace(ph.Result.Stderr) != "" && !ph.OK() {
			fmt.Fprintf(w, "  stderr: %s\n", quoteOutput(strings.TrimSpace(ph.Result.Stderr), 600))
		}
		for _, f := range ph.Fixes {
			fmt.Fprintf(w, "  fix: %s\n", f)
		}
	}
	fmt.Fprintln(w, "\ncapabilities observed:")
	declared := p.Capabilities
	for _, c := range []struct {
		name           string
		seen, declared bool
		how            string
	}{
		{"multi_turn", rep.Observed.MultiTurn, declared.MultiTurn, `a "conversation" id from open or execute`},
		{"calls", rep.Observed.Calls, declared.Calls, `"calls" from execute or collect`},
		{"usage", rep.Observed.Usage, declared.Usage, `"usage" from execute or collect`},
	} {
		seen := "no"
		if c.seen {
			seen = "yes"
		}
		note := ""
		switch {
		case c.seen && !c.declared:
			note = fmt.Sprintf("; the profile declares %s: false (-write sets it)", c.name)
		case !c.seen && c.declared:
			note = fmt.Sprintf("; the profile declares %s: true, but no hook returned %s (-write clears it)", c.name, c.how)
		}
		fmt.Fprintf(w, "  %-10s %s (%s)%s\n", c.name, seen, c.how, note)
	}
	switch {
	case rep.Observed.Calls && len(rep.Calls) == 0:
		fmt.Fprintln(w, "  calls seen: none (an empty list: the agent called no tool)")
	case rep.Observed.Calls:
		names := make([]string, 0, len(rep.Calls))
		for _, c := range rep.Calls {
			names = append(names, c.Name)
		}
		fmt.Fprintf(w, "  calls seen: %d: %s\n", len(rep.Calls), quoteOutput(strings.Join(names, ", "), 300))
	}
	if u := rep.Usage; u != nil {
		fmt.Fprintf(w, "  usage seen: %s tokens\n", u)
	}
}
