package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/affected"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/rookgen/internal/gen"
)

// recent is how many of a scenario's newest recorded durations its expected time is the
// median of.
const recent = 5

// affectedCmd is rookgen affected: which scenarios the change since a git ref affects,
// written to .rook/affected.json for -rook.only=@affected, with the expected wall time
// from the last runs.
func affectedCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen affected", flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := fs.String("base", "main", "the git ref the change is measured from (its merge base with HEAD)")
	rootFlag := fs.String("root", "", "module root (default: the directory of the go.mod above the working directory)")
	dir := fs.String("dir", "", "records root, for the expected wall time (default .rook/runs at the module root)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rookgen affected: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "rookgen affected: %v\n", err)
		return 1
	}
	root, err := moduleRoot(*rootFlag)
	if err != nil {
		return fail(err)
	}
	agents, err := gen.Load(root)
	if err != nil {
		return fail(err)
	}
	commit, changed, err := affected.Changed(root, *base)
	if err != nil {
		return fail(err)
	}
	suites := make([]affected.Suite, len(agents))
	for i, a := range agents {
		suites[i] = affected.Suite{Agent: a.Name, Profiles: a.Profiles, Scenarios: make([]*spec.Scenario, len(a.Scenarios))}
		for j, sc := range a.Scenarios {
			suites[i].Scenarios[j] = &sc.Scenario
		}
	}
	set := affected.Set{Base: *base, Commit: commit, Changed: changed, Agents: affected.Map(root, changed, suites)}
	if err := affected.Save(root, set); err != nil {
		return fail(err)
	}
	records := spec.RecordsRoot(root, *dir)
	total := 0
	for _, a := range agents {
		total += len(a.Scenarios)
	}
	var lines []string
	n := 0
	for _, a := range agents {
		hits := set.Agents[a.Name]
		n += len(hits)
		if len(hits) == 0 {
			lines = append(lines, fmt.Sprintf("%s: none of %d scenario(s)", a.Name, len(a.Scenarios)))
			continue
		}
		lines = append(lines, fmt.Sprintf("%s: %d of %d scenario(s); %s", a.Name, len(hits), len(a.Scenarios),
			expected(report.LoadHistory(records, a.Name), set.IDs(a.Name), a)))
		for _, h := range hits {
			lines = append(lines, fmt.Sprintf("  %s  %s", h.ScenarioID, h.Why))
		}
	}
	fmt.Fprintf(stdout, "rookgen affected: %d of %d scenario(s) affected by %d changed file(s) since %s (merge base %.12s)\n%s\n",
		n, total, len(changed), *base, commit, strings.Join(lines, "\n"))
	if n > 0 {
		fmt.Fprintf(stdout, "run them with: go test ./scenarios/... -rook.only=@affected (reads %s)\n", affected.File)
	}
	return 0
}

// expected is the wall time a run of ids is expected to take under each profile, from the
// median of each scenario's newest recorded durations, at the profile's concurrency.
func expected(h *report.History, ids []string, a gen.Agent) string {
	var sum time.Duration
	unknown := 0
	for _, id := range ids {
		var ds []int64
		for _, e := range h.Scenarios[id] {
			if e.DurationMs > 0 && len(ds) < recent {
				ds = append(ds, e.DurationMs)
			}
		}
		if len(ds) == 0 {
			unknown++
			continue
		}
		slices.Sort(ds)
		sum += time.Duration(ds[len(ds)/2]) * time.Millisecond
	}
	conc := 1
	if len(a.Profiles) > 0 {
		conc = a.Profiles[0].Concurrency
	}
	out := fmt.Sprintf("expected wall time about %s a profile (at concurrency %d, from the last runs' durations)",
		(sum / time.Duration(conc)).Round(100*time.Millisecond), conc)
	if unknown > 0 {
		out += fmt.Sprintf(", and %d never run, whose time is not known", unknown)
	}
	return out
}
