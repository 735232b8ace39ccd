package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/store"
)

// judge decides the attempt from its records: it observes (the records, then the MCP
// probes asked now), decides, and writes. A verdict an earlier process wrote is never
// taken as it stands: the attempt is decided again from its evidence (the model judge's
// answers come from its cache, by prompt), and a stored verdict whose computed rows
// disagree with what the evidence gives is named untrusted in the new one.
// Configure a model, then -rook.run=<id> -rook.phases=judge judges a finished run.
func (a *attemptRun) judge(ctx context.Context, res *Attempt) {
	dc := a.r.cfg.Decide
	var stored *record.Verdict
	sealBroken := a.sealBroken
	if !a.ranNow && a.again == "" {
		// ReadVerdict refuses a verdict that does not match the hooks.json beside it, or
		// whose records do not match their manifest (store.VerifySealed): the records
		// were changed after they were written, and no verdict from them is a Pass.
		v, err := store.ReadVerdict(a.dir)
		switch {
		case err == nil && v.Status != "":
			stored = v
		case errors.Is(err, store.ErrUntrusted):
			if v.Status != "" {
				stored = v // what it says is compared below, and named where it disagrees
			}
			if serr := store.VerifySealed(a.dir, v.Sealed); serr != nil && sealBroken == "" {
				sealBroken = serr.Error()
			}
		}
	}
	a.probe(ctx)
	obs := a.observe()
	a.observed = obs
	a.r.observed(obs)
	fails, _ := a.failures()
	in := decide.Input{Scenario: a.sc, RunID: a.r.ID, Observed: obs, Canary: a.hooks.Canary, Unplanted: a.hooks.CanaryUnplanted,
		Unchecked: len(a.r.cfg.Profile.CanaryFixtures) == 0, WriteTools: a.r.cfg.Profile.WriteTools, Excuse: a.r.excuse(a.sc.ID),
		Simulation: a.hooks.Simulation}
	for _, f := range fails {
		in.Failures = append(in.Failures, f.Error())
	}
	out := dc.Attempt(ctx, in)
	if stored != nil {
		if why := disagree(stored, &out.Verdict); why != "" {
			out.Verdict.Untrusted = "verdict.yaml as it was stored disagreed with its evidence: " + why
		}
	}
	if sealBroken != "" {
		out.Verdict.Untrusted = strings.TrimPrefix(out.Verdict.Untrusted+"; ", "; ") + "the records were changed after they were written: " + sealBroken
		if out.Verdict.Status == record.Pass {
			out.Verdict.Status, out.Verdict.Failure = record.Fail, "the records are not to be trusted: "+sealBroken
		}
	}
	if out.Verdict.Untrusted != "" {
		decide.ApplyExcuse(&out.Verdict, in.Excuse) // an untrusted record is never excused
	}
	red := a.r.cfg.Redactor
	if out.Request != nil {
		a.record(red.Bytes(filepath.Join(a.dir, "evidence", "judge-request.json"), out.Request))
	}
	if out.Response != nil {
		a.record(red.Bytes(filepath.Join(a.dir, "evidence", "judge-response.json"), out.Response))
	}
	out.Verdict.DecidedAgain = a.again
	if a.again != "" && out.Request == nil && out.Verdict.Judge != nil {
		// The judge was not asked this time (caught guessing): what it was asked before,
		// and answered, is still what happened.
		if prev, err := store.ReadVerdict(a.dir); err == nil && prev.Judge != nil {
			out.Verdict.Judge = prev.Judge
		}
	}
	res.Verdict = &out.Verdict
	a.record(red.WriteVerdict(a.dir, &out.Verdict))
}

// disagree names the computed rows (and the status, when no model decided a row) in which a
// stored verdict differs from the one its evidence gives now; "" when they agree.
func disagree(stored, now *record.Verdict) string {
	was := map[string]record.Status{}
	for _, r := range stored.Criteria {
		was[r.CriterionID] = r.Status
	}
	var out []string
	model := false
	for _, r := range now.Criteria {
		if r.Judge != "" || r.Check == "llm_judge" {
			model = true
			continue
		}
		if s, ok := was[r.CriterionID]; ok && s != r.Status {
			out = append(out, fmt.Sprintf("%s was %s, the evidence gives %s", r.CriterionID, s, r.Status))
		}
	}
	if !model && stored.Status != now.Status && len(out) == 0 {
		out = append(out, fmt.Sprintf("the status was %s, the evidence gives %s", stored.Status, now.Status))
	}
	return strings.Join(out, "; ")
}

// subtests names rows read back from a verdict as the scenario's criteria name them.
func subtests(sc *scenario.Scenario, rows []record.Row) {
	for i := range rows {
		for _, c := range sc.Criteria {
			if c.ID == rows[i].CriterionID {
				rows[i].Subtest = c.Subtest()
			}
		}
		if rows[i].Subtest == "" {
			rows[i].Subtest = rows[i].CriterionID
		}
	}
}

// probesFile keeps, under an attempt's evidence/, the MCP servers' answers its mcp_probe
// criteria read.
const probesFile = "mcp-probes.json"

// probeTimeout bounds one probe: starting or reaching the server, listing its tools, the
// call.
const probeTimeout = 30 * time.Second

// probe asks the MCP servers the attempt's mcp_probe criteria name, once collect is done,
// and keeps their answers in evidence/. An answer already recorded is read, not asked
// again (the run is judged again from its records); one that failed is asked again.
func (a *attemptRun) probe(ctx context.Context) {
	have, _ := a.readProbes()
	want := decide.Probes(a.sc, have)
	if len(want) == 0 {
		return
	}
	have = slices.DeleteFunc(have, func(p record.Probe) bool { return p.Error != "" })
	for _, w := range want {
		p := w
		if a.r.cfg.Probe == nil {
			p.Error = "this test binary cannot ask MCP servers"
		} else {
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			p = a.r.cfg.Probe(pctx, w)
			cancel()
		}
		if a.log != nil {
			msg := fmt.Sprintf("mcp_probe %s %s: answered in %d ms", w.Server, w.Tool, p.DurationMs)
			if p.Error != "" {
				msg = fmt.Sprintf("mcp_probe %s %s: %s", w.Server, w.Tool, p.Error)
			}
			a.log(msg)
		}
		for _, l := range p.LeftRunning {
			a.probeLeft = append(a.probeLeft, "mcp server "+w.Server+": "+l)
		}
		have = append(have, p)
	}
	a.record(a.r.cfg.Redactor.JSON(filepath.Join(a.dir, "evidence", probesFile), have))
}

// readProbes reads the probes' recorded answers; ok is false when none were recorded.
func (a *attemptRun) readProbes() ([]record.Probe, bool) {
	b, err := os.ReadFile(filepath.Join(a.dir, "evidence", probesFile))
	if err != nil {
		return nil, false
	}
	var have []record.Probe
	if err := json.Unmarshal(b, &have); err != nil {
		a.record(fmt.Errorf("%s is corrupt, so its probes are asked again: %w", probesFile, err))
		return nil, false
	}
	return have, true
}
