// Package decide turns what was observed of one attempt, and its scenario, into the
// attempt's verdict: every criterion by its check or by the model judge, the forbidden
// text, the red-team rules, and the status from them all. It reads only the observations
// value (package observe), so a channel that is missing or not whole is Unable to Verify
// here, never a Pass or a "not compromised"; it does no I/O but the model judge's call.
//
// Config.Attempt is the one entry point: each criterion is decided by its check (or the
// model judge), rows are held to the evidence tier they require, the forbidden text is
// searched, the status follows from them, and an adversarial scenario's attack is decided.
// Repeats folds an attempt's verdicts into the scenario's; the rest serve the engine
// (which probes to run, which criteria a late span could change). Whether an outcome
// counts toward the exit code is decided here too, by one rule (counting.go).
package decide

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/redteam"
	"github.com/rookgo/rookgo/internal/scenario"
)

// Config is how a run decides: the model judge and the bars its rows must clear.
type Config struct {
	// Judge decides llm_judge criteria; nil leaves them Unable to Verify ("no judge model
	// configured"). MinConfidence turns judged rows below it into Unable to Verify.
	Judge         *modeljudge.Judge
	MinConfidence string
	// Calibration is how far the judge agrees with people, by scenario/criterion, from the
	// suite's labels; MinAgreement (0 for none) turns the judged rows of a criterion that
	// agrees less, or has no labels, into Unable to Verify. LabelsPath names the labels.
	Calibration  map[string]Calibration
	MinAgreement float64
	LabelsPath   string
}

// Calibration is how far the judge agrees with people on one criterion: Agree of N
// labelled rows.
type Calibration struct{ Agree, N int }

// Input is one attempt to decide.
type Input struct {
	Scenario *scenario.Scenario
	RunID    string
	Observed *observe.Observations
	// Failures are the hook failures that fail the attempt whatever its criteria say.
	Failures []string
	// Simulation is the simulated user's part of the conversation, when the scenario has
	// one: the verdict says how it ended.
	Simulation *record.Simulation
	// Canary is the token planted for the attempt; Unplanted says which fixture did not
	// hold it after open; Unchecked that the profile names no fixture.
	Canary, Unplanted string
	Unchecked         bool
	// WriteTools are the profile's tools that change the world, for possible evasion.
	WriteTools []string
	// Excuse is what would leave the scenario's failure out of the exit code (counting's
	// quarantine or gate), "" for nothing.
	Excuse string
}

// Output is the attempt's verdict, and the exchange with the model judge to keep beside it.
type Output struct {
	Verdict record.Verdict
	// Request and Response are the judge's exchange; nil when there was none.
	Request, Response []byte
}

// Attempt decides one attempt.
func (c Config) Attempt(ctx context.Context, in Input) Output {
	sc, obs := in.Scenario, in.Observed
	last := sc.Turns()
	if sc.SimulatedUser != nil {
		last = len(obs.Turns().Value) // as many as the simulated user's conversation took
	}
	rows := evaluate(sc.Criteria, obs, last)
	var out Output
	m := c.askModel(ctx, in, rows)
	out.Request, out.Response = m.request, m.response
	requireTier(sc.Criteria, rows)
	hits := forbidden(sc.Forbidden, obs)
	words := obs.Words()
	status, reason := scenarioStatus(rows, hits, len(sc.Forbidden) > 0 && words.Complete)
	if len(in.Failures) > 0 {
		status, reason = record.Fail, ""
	}
	turns := obs.Turns().Value
	v := record.Verdict{ScenarioID: sc.ID, RunID: in.RunID, Status: status, UnverifiableReason: reason,
		Criteria: nonNil(rows), ForbiddenHits: nonNil(hits), Turns: len(turns), Usage: observe.Shown(obs.Usage()), Judge: m.info,
		Failure: strings.Join(in.Failures, "; "), Lost: obs.Lost()}
	for _, t := range turns {
		v.LatencyMs += t.LatencyMs
	}
	if sim := in.Simulation; sim != nil {
		v.SimulatedUser = fmt.Sprintf("%s after %d turn(s)", cmp.Or(sim.Ended, "not ended"), len(turns))
		if sim.Why != "" {
			v.SimulatedUser += ": " + sim.Why
		}
		v.Simulator = simulatorInfo(sim)
	}
	CountRows(&v)
	attack(&v, in, m.signals)
	ApplyExcuse(&v, in.Excuse)
	out.Verdict = v
	return out
}

// HasModelCriteria reports whether a scenario has criteria a judge model decides.
func HasModelCriteria(sc *scenario.Scenario) bool {
	return sc.Observes().Has(check.ObservesModel)
}

// attack decides an adversarial scenario's attempt (redteam.Decide) and flags possible
// evasion on any scenario, into v. A compromised attempt fails, whatever its criteria say.
func attack(v *record.Verdict, in Input, judged map[string]record.SignalResult) {
	if e := redteam.Evasion(in.Observed, in.WriteTools); e != "" {
		v.PossibleEvasion, v.EvasionEvidence = true, e
	}
	sc := in.Scenario
	if !sc.Adversarial() {
		return
	}
	rin := redteam.Input{Evidence: in.Observed, Rows: v.Rows(), Canary: in.Canary, Unplanted: in.Unplanted,
		Unchecked: in.Unchecked, Judged: judged}
	if rt := sc.Redteam; rt != nil {
		rin.Success, rin.Failure = rt.Success, rt.Failure
	}
	v.Attack = redteam.Decide(rin)
	switch {
	case v.Attack.IsCompromised():
		v.Status, v.UnverifiableReason = record.Fail, ""
	case v.Attack.Unverified != "" && v.Status == record.Pass:
		v.Status, v.UnverifiableReason = record.UnableToVerify, record.NotObservable
	}
}

// nonNil makes a nil list an empty one, so that records show [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// simulatorInfo totals what a simulated user's model did: its answers, and the tokens of
// those asked of it (a cached one was paid for by the run that asked); nil when a
// recording played the user, or the model gave no answer.
func simulatorInfo(sim *record.Simulation) *record.SimulatorInfo {
	if sim.Model == record.RecordingModel {
		return nil
	}
	info := &record.SimulatorInfo{Model: sim.Model}
	var in, out int64
	known := true
	for _, t := range sim.Turns {
		info.Answers++
		if t.Cached {
			info.Cached++
			continue
		}
		if t.Usage == nil || t.Usage.Input == nil || t.Usage.Output == nil {
			known = false
			continue
		}
		in, out = in+*t.Usage.Input, out+*t.Usage.Output
	}
	if info.Answers == 0 {
		return nil
	}
	if known && info.Answers > info.Cached {
		info.Usage = record.Tokens(in, out)
	}
	return info
}
