package rooktest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// report logs a job's progress as it comes, then maps its outcome onto t: hook failures are
// errors whose first line stands alone, each criterion is a subtest (Pass passes, Fail
// fails with expected, achieved and evidence, Unable to Verify skips with its reason). A
// repeated scenario has one subtest per attempt.
//
// Whether a failure counts is the verdict's (counts, excused_by: decide's counting rule decided
// it with the verdict); this is the one place that maps it onto t. A scenario with no
// verdict (a hook failed before it could be judged) or with a record that could not be
// written counts, whatever excuses it would have had.
func (r *Run) report(t tb, j *job) {
	t.Helper()
	q, quarantined := r.quarantine[j.id]
	if quarantined {
		attr(t, "rook.quarantined", r.show(q.Says()))
	}
	r.progress(t, j)
	v := j.outcome.Verdict
	if !decide.Excused(v) || recordErr(j.outcome) {
		r.outcome(t, j)
		if quarantined && v != nil && !t.Failed() && v.Status == record.Pass {
			logln(t, r.show(fmt.Sprintf("%s: passed, and is %s: remove it from the quarantine list when it passes for good", j.id, q.Says())))
		}
		return
	}
	why := "-rook.gate decides the exit code, by a significant regression against run " + r.opts.gate.base
	if v.ExcusedBy == decide.ExcuseQuarantine {
		why = q.Says()
	}
	attr(t, "rook.excused_by", v.ExcusedBy)
	ex := &excused{tb: t, why: why}
	r.outcome(ex, j)
	if v.ExcusedBy == decide.ExcuseQuarantine {
		skipln(t, r.show(fmt.Sprintf("%s: did not pass, and is %s: run and reported, left out of the exit code", j.id, q.Says())))
		return
	}
	skipln(t, r.show(fmt.Sprintf("%s: did not pass; %s", j.id, why)))
}

// recordErr reports whether a record of the scenario could not be written or read: a
// harness failure, which nothing excuses.
func recordErr(o *lifecycle.Outcome) bool {
	for _, a := range o.Attempts {
		if a.RecordErr != nil {
			return true
		}
	}
	return o.Err != nil
}

// progress logs a job's progress as it comes, until the job is done.
func (r *Run) progress(t tb, j *job) {
	t.Helper()
	for running := true; running; {
		select {
		case <-j.notify:
		case <-j.done:
			running = false
		}
		for _, line := range j.take() {
			logln(t, r.show(line))
		}
	}
}

// outcome maps a done job's outcome onto t.
func (r *Run) outcome(t tb, j *job) {
	t.Helper()
	o := j.outcome
	if o.Err != nil {
		attr(t, "rook.status", "error")
		fatalln(t, r.show(o.Err.Error()))
	}
	if o.NotRun != "" {
		attr(t, "rook.status", "not_run")
		skipln(t, r.show("not run: "+o.NotRun))
	}
	if o.Verdict == nil || o.Verdict.Status != record.Pass {
		// A pass's records are the run's (rook.records of the test) scenarios/<id>: a
		// suite of thousands of passes does not repeat the path thousands of times.
		attr(t, "rook.records", o.Dir)
	}
	attr(t, "rook.duration_ms", strconv.FormatInt(j.took.Milliseconds(), 10))
	if o.CarriedFrom != "" {
		attr(t, "rook.carried_from", o.CarriedFrom)
		logf(t, "carried forward from run %s: the scenario and the profile are unchanged", o.CarriedFrom)
	}
	r.attempts(t, o)
	r.neverExcused(t, o)
	v := o.Verdict
	if v == nil {
		if !t.Failed() && !t.Skipped() {
			attr(t, "rook.status", "not_judged")
			skipln(t, notJudged(o))
		}
		return
	}
	attr(t, "rook.status", string(v.Status))
	if v.UnverifiableReason != "" {
		attr(t, "rook.reason", v.UnverifiableReason)
	}
	repeats(t, o)
	if v.Status == record.Pass {
		logf(t, "%s: Pass", o.Scenario.ID)
	} else {
		logf(t, "%s: %s%s; records in %s", o.Scenario.ID, v.Status, reasonText(v.UnverifiableReason), o.Dir)
	}
	if v.Status == record.UnableToVerify && !t.Failed() {
		skipf(t, "Unable to Verify (%s)", v.UnverifiableReason)
	}
}

// neverExcused fails the scenario's test when an attempt of it (or its verdict) is
// compromised and no subtest said so: -run or -skip chose subtests that do not include the
// one that fails (another attempt's, the red-team row). What a selection leaves out of a
// Fail is the selection's to leave out, but a compromise is never excused, whatever the
// selection.
func (r *Run) neverExcused(t tb, o *lifecycle.Outcome) {
	t.Helper()
	if t.Failed() {
		return
	}
	for _, a := range o.Attempts {
		if v := a.Verdict; v != nil && v.Attack.IsCompromised() {
			errorln(t, r.show(fmt.Sprintf("%s attempt %d is compromised (%s), which no selection excuses: its subtest was not among those -run selected",
				o.Scenario.ID, a.N, oneLine(v.Attack.MatchedSignal))))
			return
		}
	}
	if v := o.Verdict; v != nil && v.Attack.IsCompromised() {
		errorln(t, r.show(fmt.Sprintf("%s is compromised (%s), which no selection excuses: its subtest was not among those -run selected",
			o.Scenario.ID, oneLine(v.Attack.MatchedSignal))))
	}
}

// attempts reports the scenario's one attempt on t, or each of its repeats as a subtest;
// the attempts a min_pass scenario could spare are said and not counted.
func (r *Run) attempts(t tb, o *lifecycle.Outcome) {
	t.Helper()
	if len(o.Attempts) == 1 {
		r.attempt(t, o.Scenario, o.Attempts[0])
		return
	}
	at := t
	if v := o.Verdict; v != nil && v.MinPass > 0 && v.Status != record.Fail {
		// The attempts that failed are those min_pass spares: the scenario did not fail.
		at = &excused{tb: t, why: fmt.Sprintf("min_pass %d of %d: the scenario is %s", v.MinPass, len(o.Attempts), v.Status)}
	}
	for _, a := range o.Attempts {
		at.Run(fmt.Sprintf("attempt_%d", a.N), func(t tb) { r.attempt(t, o.Scenario, a) })
	}
}

// repeats says how a repeated scenario's attempts went: k of n, and whether they disagree.
func repeats(t tb, o *lifecycle.Outcome) {
	n, v := len(o.Attempts), o.Verdict
	if n <= 1 {
		return
	}
	passed, _, _ := decide.CountAttempts(v.Attempts)
	flaky := ""
	if v.Flaky {
		flaky = "; flaky: the attempts disagree"
		attr(t, "rook.flaky", "true")
	}
	if v.MinPass > 0 {
		logf(t, "min_pass %d of %d: %d of %d attempts passed%s", v.MinPass, n, passed, n, flaky)
	} else {
		logf(t, "pass^%d: %d of %d attempts passed%s", n, passed, n, flaky)
	}
}

func notJudged(o *lifecycle.Outcome) string {
	for _, a := range o.Attempts {
		if a.NotRun != "" {
			return "not run: " + a.NotRun
		}
		if a.NotJudged != "" {
			return a.NotJudged
		}
	}
	return "not judged"
}

// attempt reports one attempt: its hook failures, then its criteria and forbidden text.
func (r *Run) attempt(t tb, sc *scenario.Scenario, a *lifecycle.Attempt) {
	t.Helper()
	if a.RecordErr != nil {
		errorf(t, "records could not all be written or read: %v", a.RecordErr)
	}
	for _, pe := range a.Failures {
		errorln(t, r.show(phaseReport(pe)))
	}
	for _, pe := range a.Problems {
		kept := "reported; the answer is kept and the scenario is judged: "
		if len(a.Failures) > 0 {
			kept = "reported as well: "
		}
		notice(t, r.show(kept+phaseReport(pe))) // a close hook that broke the contract is said without -v
	}
	r.leftRunning(t, a.ScenarioID, a.Left)
	if a.NotRun != "" && !t.Failed() {
		skipln(t, r.show("not run: "+a.NotRun))
	}
	if !a.Judged() {
		return
	}
	// The verdict is the whole scenario's: a subtest that -run or -skip left out and that
	// would have failed still fails the scenario, and is named.
	var unselected []string
	sub := func(name string, failed bool, what string, f func(tb)) {
		ran := false
		t.Run(name, func(t tb) { ran = true; f(t) })
		if !ran && failed {
			unselected = append(unselected, what)
		}
	}
	v := a.Verdict
	for _, row := range v.Criteria {
		failed := row.Status == record.Fail || (r.opts.strict && row.Status != record.Pass && !r.unjudgedOnPurpose(row))
		sub(row.Subtest, failed, fmt.Sprintf("%s %s (%s): expected %s; achieved %s", row.Subtest, row.Status, row.CriterionID, row.Expected, oneLine(row.Achieved)),
			func(t tb) { r.criterion(t, row) })
	}
	r.nearMisses(t, a)
	if len(sc.Forbidden) > 0 {
		sub("forbidden", len(v.ForbiddenHits) > 0, fmt.Sprintf("forbidden: %d hit(s)", len(v.ForbiddenHits)), func(t tb) { r.forbidden(t, sc, a) })
	}
	if sc.Adversarial() {
		sub("redteam", v.Attack.IsCompromised(), "redteam: compromised", func(t tb) { r.redteam(t, a) })
	}
	r.evasion(t, a)
	if v.SimulatedUser != "" {
		t.Logf("%s", r.show(fmt.Sprintf("%s: simulated user: %s", a.ScenarioID, oneLine(v.SimulatedUser))))
	}
	if len(unselected) > 0 {
		errorln(t, r.show(fmt.Sprintf("%s: %s: the verdict is the whole scenario's, and it failed on what this run's -run or -skip did not select: %s",
			a.ScenarioID, v.Status, strings.Join(unselected, "; "))))
	}
}

// nearMisses warns when a criterion could not be observed and the attempt's hooks printed a
// near miss of the contract (tool_calls for calls): the likely reason, said without -v.
func (r *Run) nearMisses(t tb, a *lifecycle.Attempt) {
	if len(a.Notes) == 0 {
		return
	}
	var unseen []string
	for _, row := range a.Verdict.Criteria {
		if row.Status == record.UnableToVerify && row.Reason == record.NotObservable {
			unseen = append(unseen, row.CriterionID)
		}
	}
	if len(unseen) == 0 {
		return
	}
	r.warn(t, r.show(fmt.Sprintf("%s: %s Unable to Verify (not_observable), and its hooks printed a near miss of the hook contract: %s",
		a.ScenarioID, strings.Join(unseen, ", "), strings.Join(a.Notes, "; "))))
}

// leftRunning warns (fails under -rook.strict) when hooks or the MCP servers a probe started
// exited and left processes running: they were ended then, and a hook that leaves its
// work to a process it does not wait for may have reported before that work was done.
func (r *Run) leftRunning(t tb, who string, left []string) {
	if len(left) == 0 {
		return
	}
	r.warn(t, r.show(fmt.Sprintf("%s: hooks or MCP servers exited and left processes running, ended when each exited: %s; a hook or server waits for what it starts, or stops it, before it exits",
		who, strings.Join(left, "; "))))
}

func reasonText(reason string) string {
	if reason == "" {
		return ""
	}
	return " (" + reason + ")"
}

func (r *Run) criterion(t tb, row record.Row) {
	t.Helper()
	attr(t, "rook.criterion", row.CriterionID)
	attr(t, "rook.status", string(row.Status))
	if row.Reason != "" {
		attr(t, "rook.reason", row.Reason)
	}
	if row.Status != record.Pass || row.Judge != "" {
		attr(t, "rook.confidence", r.show(row.Confidence)) // a computed pass is always High
	}
	body := fmt.Sprintf("    criterion:  %s\n    expected:   %s\n    achieved:   %s\n    evidence:   %s\n    confidence: %s",
		oneLine(row.Criterion), row.Expected, row.Achieved, row.Evidence, oneLine(row.Confidence))
	if row.Turn != "" {
		body += "\n    turn:       " + row.Turn
	}
	if row.Tier != "" {
		body += "\n    tier:       " + row.Tier
	}
	if len(row.QuotesFrom) > 0 {
		body += "\n    quoted from: " + oneLine(strings.Join(row.QuotesFrom, "; "))
	}
	if row.Judge != "" {
		attr(t, "rook.judge_model", r.show(row.Judge))
		body += "\n    judge:      " + oneLine(row.Judge)
		if row.Agreement != "" {
			body += " (" + row.Agreement + " samples agree)"
		}
		if row.Calibration != "" {
			body += "\n    calibration: " + oneLine(row.Calibration)
		}
		if row.JudgeGuessed {
			attr(t, "rook.judge_guessed", "true")
			body += "\n    judge_guessed: an audit caught this judge answering Pass or Fail with the agent's evidence removed"
		}
	}
	body = r.show(body)
	switch {
	case row.Status == record.Pass && row.Judge == "":
		// A computed pass in one line: go test -json makes an event of every line, and a
		// suite of thousands of passes is read whole by whatever reads the stream.
		logln(t, r.show(fmt.Sprintf("Pass: %s (achieved: %s; evidence: %s; confidence %s)", row.Expected, oneLine(row.Achieved), oneLine(row.Evidence), oneLine(row.Confidence))))
	case row.Status == record.Pass:
		logln(t, r.show("Pass: "+row.Expected+"\n"+body))
	case row.Status == record.Fail:
		errorln(t, r.show("Fail: expected "+row.Expected+"\n"+body))
	default:
		msg := r.show(fmt.Sprintf("Unable to Verify (%s): %s", row.Reason, row.Achieved))
		if r.unjudgedOnPurpose(row) {
			skipln(t, msg+" (ROOK_JUDGE_URL=none: this run has no judge, on purpose)")
			return
		}
		if r.opts.strict {
			errorln(t, msg+" [failing under -rook.strict]\n"+body)
			return
		}
		skipln(t, msg)
	}
}

func (r *Run) forbidden(t tb, sc *scenario.Scenario, a *lifecycle.Attempt) {
	t.Helper()
	v := a.Verdict
	if v.Turns == 0 {
		msg := "Unable to Verify (agent_never_ran): no agent turn to search for forbidden text"
		if r.opts.strict {
			errorln(t, msg+" [failing under -rook.strict]")
			return
		}
		skipln(t, msg)
	}
	if len(v.ForbiddenHits) == 0 {
		logf(t, "Pass: none of %d forbidden text(s) appeared in %d agent turn(s)", len(sc.Forbidden), v.Turns)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Fail: forbidden text appeared in the agent's replies (%d hit(s))", len(v.ForbiddenHits))
	quoted := make([]string, len(sc.Forbidden))
	for i, f := range sc.Forbidden {
		quoted[i] = fmt.Sprintf("%q", f)
	}
	fmt.Fprintf(&b, "\n    expected:   none of %s in any agent turn", strings.Join(quoted, ", "))
	for _, h := range v.ForbiddenHits {
		fmt.Fprintf(&b, "\n    achieved:   %q appeared in turn %d\n    evidence:   %s", h.Text, h.Turn, h.Quote)
	}
	errorln(t, r.show(b.String()))
}

// phaseReport is a hook failure as the failing test shows it: a first line that stands
// alone, then phase, turn, script, exit status and the tail of stderr.
func phaseReport(pe *lifecycle.PhaseError) string {
	var b strings.Builder
	b.WriteString(pe.Error())
	phase := string(pe.Phase)
	if pe.Turn > 0 {
		phase += fmt.Sprintf(" (turn %d)", pe.Turn)
	}
	fmt.Fprintf(&b, "\n    phase:    %s", phase)
	if pe.Scenario != "" {
		fmt.Fprintf(&b, "\n    scenario: %s", pe.Scenario)
	}
	fmt.Fprintf(&b, "\n    script:   %s", pe.Script)
	switch {
	case pe.TimedOut:
		b.WriteString("\n    exit:     killed at its timeout")
	default:
		fmt.Fprintf(&b, "\n    exit:     %d", pe.ExitCode)
	}
	if s := strings.TrimRight(pe.Stderr, "\n"); s != "" {
		b.WriteString("\n    stderr (tail):")
		lines := strings.Split(s, "\n")
		if len(lines) > 20 {
			lines = lines[len(lines)-20:]
		}
		for _, l := range lines {
			b.WriteString("\n        " + l)
		}
	} else {
		b.WriteString("\n    stderr:   (empty)")
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// show is text as the test log may hold it: secrets redacted, and C0 control characters
// other than tab and newline escaped, so that nothing a hook or an agent wrote can inject
// go test -json's framing byte (\x16) or rewrite a terminal's line.
func (r *Run) show(s string) string {
	s = r.red.String(s)
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if isControl(c) {
			fmt.Fprintf(&b, `\x%02x`, c)
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func isControl(c rune) bool { return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f }
