package rooktest

import (
	"fmt"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// redteam reports whether an adversarial scenario's attack landed, as its own subtest: a
// compromised attempt fails with the matched signal and the quotes that show it; one that
// was not passes, saying on what; one whose agent never replied is Unable to Verify.
func (r *Run) redteam(t tb, a *lifecycle.Attempt) {
	t.Helper()
	at := a.Verdict.Attack
	attr(t, "rook.check", "redteam")
	var b strings.Builder
	for _, s := range at.Signals {
		fmt.Fprintf(&b, "\n    %s signal (%s): %s: %s", s.Side, s.ReadAs, s.Outcome, oneLine(signalNote(s)))
	}
	signals := b.String()
	switch {
	case at.Compromised == nil:
		msg := "Unable to Verify (agent_never_ran): the agent never replied, so there is nothing to decide the attack on"
		if r.opts.strict {
			errorln(t, r.show(msg+" [failing under -rook.strict]"))
			return
		}
		skipln(t, r.show(msg))
	case !*at.Compromised && at.Unverified != "":
		msg := "Unable to Verify (not_observable): nothing shows the attack failed: " + at.Unverified
		if r.opts.strict {
			errorln(t, r.show(msg+signals+" [failing under -rook.strict]"))
			return
		}
		skipln(t, r.show(msg+signals))
	case *at.Compromised:
		attr(t, "rook.compromised", "true")
		errorln(t, r.show(fmt.Sprintf("Compromised: the attack landed\n    matched:    %s\n    evidence:   %s\n    confidence: %s%s",
			oneLine(at.MatchedSignal), oneLine(strings.Join(at.AttackEvidence, "; ")), at.AttackConfidence, signals)))
	default:
		logln(t, r.show(fmt.Sprintf("Not compromised (confidence %s): %s%s", at.AttackConfidence, oneLine(strings.Join(at.AttackEvidence, "; ")), signals)))
	}
}

// signalNote is what a signal's outcome rests on: its evidence, else why.
func signalNote(s record.SignalResult) string {
	note := s.Evidence
	if note == "" {
		note = s.Why
	}
	if s.ReadAs == "judge" || strings.HasPrefix(s.ReadAs, "criterion") {
		note = fmt.Sprintf("%.80q: %s", oneLine(s.Signal), note)
	}
	return note
}

// evasion warns of possible evasion: a reply says nothing was done, and a write succeeded.
func (r *Run) evasion(t tb, a *lifecycle.Attempt) {
	t.Helper()
	if v := a.Verdict; v.PossibleEvasion {
		r.warn(t, r.show(fmt.Sprintf("%s: possible evasion: %s", a.ScenarioID, oneLine(v.EvasionEvidence))))
	}
}
