package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/rookgen/internal/gen"
)

// planRecent is how many of a scenario's newest recorded durations a shard plan reads.
const planRecent = 10

// shardsCmd is rookgen shards: a plan that splits each agent's suite over N shards by the
// durations its runs recorded, for -rook.shard-plan.
func shardsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen shards", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 0, "the number of shards")
	from := fs.String("from", "latest", "the run whose durations to use (a merged CI run, say), or latest: each scenario's newest runs")
	out := fs.String("o", "", "write the plan here (default "+report.ShardPlanFile+" at the module root)")
	dir := fs.String("dir", "", "records root (default .rook/runs at the module root)")
	rootFlag := fs.String("root", "", "module root (default: the directory of the go.mod above the working directory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || *n < 1 {
		fmt.Fprintln(stderr, "usage: rookgen shards -n N [-from RUN|latest] [-o FILE] [-dir records]")
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "rookgen shards: %v\n", err)
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
	records := spec.RecordsRoot(root, *dir)
	var runs map[string]bool
	if *from != "latest" {
		if !store.ValidRunID(*from) {
			return fail(fmt.Errorf("-from=%s is not a run id", *from))
		}
		runs = map[string]bool{*from: true}
	}
	p := &report.ShardPlan{Version: report.ShardPlanVersion, Shards: *n, From: *from,
		Agents: map[string]map[string]int{}, ExpectedMs: map[string][]int64{}, IdealMs: map[string]int64{}}
	found := false
	for _, a := range agents {
		h := report.LoadHistory(records, a.Name)
		for _, r := range h.Runs {
			found = found || runs == nil || runs[r.ID]
		}
		ids := make([]string, len(a.Scenarios))
		repeat := map[string]int{}
		for i, sc := range a.Scenarios {
			ids[i], repeat[sc.ID] = sc.ID, sc.Repeat
		}
		est := report.Estimates(h, ids, repeat, runs, planRecent)
		var total int64
		for _, ms := range est {
			total += ms
		}
		p.Agents[a.Name], p.ExpectedMs[a.Name] = report.Balance(*n, est)
		p.IdealMs[a.Name] = total / int64(*n)
	}
	if runs != nil && !found {
		return fail(fmt.Errorf("-from=%s names no run under %s", *from, records))
	}
	p.Seal()
	path := *out
	if path == "" {
		path = filepath.Join(root, filepath.FromSlash(report.ShardPlanFile))
	}
	if err := p.Save(path); err != nil {
		return fail(err)
	}
	fmt.Fprintf(stdout, "rookgen shards: wrote %s (%s), from %s durations\n%s\nrun shard K of %d with: go test ./scenarios/... -rook.shard=K/%d -rook.shard-plan=%s\n",
		path, p.Hash[:19], *from, p.Says(), *n, *n, path)
	return 0
}
