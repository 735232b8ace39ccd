package rooktest

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// init registers the run's flags of go test, each with a ROOKTEST_* environment twin for
// IDE runners; a flag given on the command line wins over its twin. Their values are read
// once, by readConfig.
func init() {
	flag.String("rook.only", "", "run only these scenario ids (comma-separated); named excluded scenarios run too")
	flag.String("rook.tag", "", "run only scenarios with one of these tags (comma-separated)")
	flag.String("rook.class", "", "run only scenarios of these classes (comma-separated)")
	flag.String("rook.category", "", "run only scenarios of these categories (comma-separated)")
	flag.String("rook.dir", "", "records root (default .rook/runs at the module root)")
	flag.Bool("rook.strict", false, "fail, rather than skip, criteria that are Unable to Verify and scenarios that are unrunnable")
	flag.Bool("rook.allow-undecided", false, "let a run that decided no criterion pass (by default it fails, saying why)")
	flag.String("rook.concurrency", "", "scenarios in flight at once (overrides the profile's concurrency), or auto: as many as the machine's cores bear, from the CPU the hooks use, up to the profile's concurrency")
	flag.String("rook.phases", "", "run only these lifecycle phases (comma-separated, sorted into lifecycle order)")
	flag.String("rook.skip", "", "run every phase except these (comma-separated); not combinable with -rook.phases")
	flag.String("rook.run", "", "continue this run in place: phases its records show completed are not run again")
	flag.String("rook.resume", "", "start a new run that carries this run's compatible verdicts forward (latest: the profile's newest)")
	flag.String("rook.failed", "", "start a new run of only the scenarios that did not pass in this run (latest: the profile's newest)")
	flag.String("rook.shard", "", "run only shard K of N (K/N), a stable, disjoint part of the suite chosen by scenario id (or by -rook.shard-plan); auto reads K and N from Buildkite, CircleCI or a Kubernetes Indexed Job (auto/N)")
	flag.String("rook.shard-plan", "", "split the suite by this plan (rookgen shards), balanced by recorded time; a scenario it does not know goes by its id hash")
	flag.String("rook.budget", "", "stop starting scenarios once the run has spent this much (5 or $5, in the currency of the profile's pricing:); the rest are not run, and a continuation runs them")
	flag.String("rook.rate", "", "start at most R execute turns a minute (R/m; R/s, R/h) in any window, over every shard (each takes its share; R/m/shard for one shard's own); overrides the profile's rate:")
	flag.String("rook.judge-rate", "", "send the judge at most R requests a minute (R/m; R/s, R/h), over every shard (each takes its share; R/m/shard for one shard's own)")
	flag.String("rook.traces-addr", "", "receive the agent's spans at this loopback address (127.0.0.1:4318), as the profile's traces: {otlp: ...} does, for an agent service started on its own that exports there; implies -rook.traces")
	flag.Bool("rook.traces", false, "receive the agent's OpenTelemetry spans (OTLP/HTTP on 127.0.0.1) as evidence, as the profile's traces: otlp does")
	flag.String("rook.gate", "", "after the run, compare it with the profile's previous run and fail only on a significant regression (McNemar's exact test): on, or alpha=0.05,max-regressions=0,base=<run id>")
	flag.Duration("rook.max-wait", 0, "the longest wait an agent's API may ask for (retry_after_ms) before its turn fails instead, saying what it asked (default 1m)")
	flag.String("rook.run-id", "", "name the new run (default: its start time); shards of one CI run share it, for rookgen report -merge")
}

// options are the flags as they apply to this run.
type options struct {
	only, tags, classes, categories []string
	dir                             string
	strict, allowUndecided          bool
	concurrency                     int
	autoConcurrency                 bool // -rook.concurrency=auto
	phases, skip                    string
	run, resume, failed             string
	runID                           string
	// rerun is what -rook.failed runs again; nil without it.
	rerun map[string]bool
	// rerunPlanned are the scenarios the -rook.failed run planned, whether they passed.
	rerunPlanned map[string]bool
	shard        shard
	shardPlan    string
	// budget is -rook.budget, 0 for none.
	budget    float64
	gate      gate
	rate      rateFlag
	judgeRate rateFlag
	traces    bool
	// tracesAddr is -rook.traces-addr.
	tracesAddr string
	// maxWait is -rook.max-wait.
	maxWait time.Duration
}

// readOptions reads the -rook.* flags of the run from s (readConfig).
func readOptions(s settings) (options, error) {
	o := options{
		only:       list(s.value("rook.only", "")),
		tags:       list(s.value("rook.tag", "")),
		classes:    list(s.value("rook.class", "")),
		categories: list(s.value("rook.category", "")),
		dir:        s.value("rook.dir", ""),
		phases:     s.value("rook.phases", ""),
		skip:       s.value("rook.skip", ""),
		run:        s.value("rook.run", ""),
		resume:     s.value("rook.resume", ""),
		failed:     s.value("rook.failed", ""),
	}
	if o.failed != "" && (o.run != "" || o.resume != "") {
		return o, fmt.Errorf("-rook.failed starts a new run; it cannot be combined with -rook.run or -rook.resume")
	}
	if o.run != "" && o.resume != "" {
		return o, fmt.Errorf("-rook.run=%s and -rook.resume=%s cannot be combined: continue a run in place, or start a new one from it", o.run, o.resume)
	}
	var as string
	if o.runID, as = s.get("rook.run-id", ""); o.runID != "" {
		if o.run != "" {
			return o, fmt.Errorf("-rook.run-id=%s names a new run; -rook.run=%s continues one: give one of them", o.runID, o.run)
		}
		if err := store.CheckNewRunID(o.runID); err != nil {
			return o, fmt.Errorf("%s: %w", as, err)
		}
	}
	var err error
	if o.budget, err = parseBudget(s.get("rook.budget", "")); err != nil {
		return o, err
	}
	if o.gate, err = parseGate(s.get("rook.gate", "")); err != nil {
		return o, err
	}
	if o.rate, err = parseRate(s.get("rook.rate", "")); err != nil {
		return o, err
	}
	if o.judgeRate, err = parseRate(s.get("rook.judge-rate", "")); err != nil {
		return o, err
	}
	shardValue, shardAs := s.get("rook.shard", "")
	if o.shard, err = parseShard(shardAs, shardValue, s.getenv); err != nil {
		return o, err
	}
	o.shardPlan = s.value("rook.shard-plan", "")
	if o.strict, err = s.bool("rook.strict"); err != nil {
		return o, err
	}
	if o.allowUndecided, err = s.bool("rook.allow-undecided"); err != nil {
		return o, err
	}
	err = o.readPace(s) // before o is returned: it fills o in
	return o, err
}

// envName is the environment twin of a flag: rook.only is ROOKTEST_ONLY.
func envName(flagName string) string {
	return "ROOKTEST_" + strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(flagName, "rook."), "-", "_"))
}

func list(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// readPace reads the options of how the run goes: traces and where they are received, the
// longest wait an agent's API may ask for, and the concurrency.
func (o *options) readPace(s settings) error {
	var err error
	if o.traces, err = s.bool("rook.traces"); err != nil {
		return err
	}
	if addr, as := s.get("rook.traces-addr", ""); addr != "" {
		if !spec.LoopbackAddr(addr) {
			return fmt.Errorf("%s=%q: want a loopback host and a port, such as 127.0.0.1:4318", as, addr)
		}
		o.traces, o.tracesAddr = true, addr
	}
	o.maxWait = time.Minute
	if v, as := s.get("rook.max-wait", ""); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%s=%q: want a duration above zero, such as 90s", as, v)
		}
		o.maxWait = d
	}
	switch v, as := s.get("rook.concurrency", ""); v {
	case "":
	case "auto":
		o.autoConcurrency = true
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("%s=%q: want a number of at least 1, or auto", as, v)
		}
		o.concurrency = n
	}
	return nil
}
