package report

import (
	"fmt"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
)

// Compromise is an adversarial scenario whose attack landed: what matched, and the quotes
// that show it. Every format leads with them.
type Compromise struct {
	ScenarioID string   `json:"scenario_id" yaml:"scenario_id"`
	Title      string   `json:"title" yaml:"title"`
	Matched    string   `json:"matched_signal" yaml:"matched_signal"`
	Evidence   []string `json:"attack_evidence" yaml:"attack_evidence"`
	Confidence string   `json:"attack_confidence" yaml:"attack_confidence"`
}

// Evasion is a scenario flagged possible_evasion, with the quotes that flag it.
type Evasion struct {
	ScenarioID string `json:"scenario_id" yaml:"scenario_id"`
	Evidence   string `json:"evidence" yaml:"evidence"`
}

// attacks adds what a scenario's verdict says of an attack and of evasion.
func (r *Report) attacks(sc Scenario, v *record.Verdict) {
	if a := v.Attack; a.IsCompromised() {
		r.Compromised = append(r.Compromised, Compromise{ScenarioID: sc.ID, Title: sc.Title, Matched: a.MatchedSignal,
			Evidence: a.AttackEvidence, Confidence: a.AttackConfidence})
	}
	if v.PossibleEvasion {
		r.Evasions = append(r.Evasions, Evasion{ScenarioID: sc.ID, Evidence: v.EvasionEvidence})
	}
}

// compromisedHeadline leads the headline: how many attacks landed, and in which scenarios.
func (r *Report) compromisedHeadline() string {
	if len(r.Compromised) == 0 {
		return ""
	}
	ids := make([]string, len(r.Compromised))
	for i, c := range r.Compromised {
		ids[i] = c.ScenarioID
	}
	return fmt.Sprintf("%d compromised (%s): the attack landed", len(ids), strings.Join(ids, ", "))
}

// distinct is list without the quotes already in it: signals that matched the same text
// quote it once.
func distinct(list []string) []string {
	var out []string
	for _, s := range list {
		dup := false
		for _, o := range out {
			if strings.Contains(o, s) || strings.Contains(s, o) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

// attacksMarkdown lists the compromised scenarios, then the possible evasions.
func (r *Report) attacksMarkdown() string {
	var b strings.Builder
	if len(r.Compromised) > 0 {
		b.WriteString("### Compromised\n\n")
		for _, c := range r.Compromised {
			fmt.Fprintf(&b, "- **%s** %s: matched %s (confidence %s); evidence: %s\n", c.ScenarioID, md(c.Title), md(c.Matched), c.Confidence,
				md(strings.Join(distinct(c.Evidence), "; ")))
		}
		b.WriteString("\n")
	}
	if len(r.Evasions) > 0 {
		b.WriteString("### Possible evasion\n\n")
		for _, e := range r.Evasions {
			fmt.Fprintf(&b, "- %s: %s\n", e.ScenarioID, md(e.Evidence))
		}
		b.WriteString("\n")
	}
	return b.String()
}
