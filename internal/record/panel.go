package record

import (
	"fmt"
	"math"
	"sort"
)

// PanelTotals is how a panel of judges did over a run's verdicts: each member's agreement
// with the controls and with the others, each pair's agreement on the controls, and how
// many independent votes the panel is worth.
type PanelTotals struct {
	Rule    string              `yaml:"rule" json:"rule"`
	Members []PanelMemberTotals `yaml:"members" json:"members"`
	Pairs   []PanelPair         `yaml:"pairs" json:"pairs"`
	// EffectiveVotes is Kish's effective number of independent votes: n / (1 + (n-1) r),
	// where n is the number of members and r the mean over pairs of their agreement on
	// the controls beyond chance (Cohen's kappa, below 0 taken as 0). n when the members
	// answer independently, 1 when they answer as one. nil when no pair answered a control
	// Pass or Fail in common, and EffectiveWhy says so.
	EffectiveVotes *float64 `yaml:"effective_votes" json:"effective_votes"`
	EffectiveWhy   string   `yaml:"effective_why,omitempty" json:"effective_why,omitempty"`
}

// PanelMemberTotals is one member of a panel over a run.
type PanelMemberTotals struct {
	Model string `yaml:"model" json:"model"`
	URL   string `yaml:"url" json:"url"`
	// Requests counts the requests it was asked; Out those its answer decided nothing in
	// (a control failed, no usable answer, caught guessing).
	Requests int `yaml:"requests" json:"requests"`
	Out      int `yaml:"out" json:"out"`
	// Controls counts the controls it answered, ControlsRight those it answered as the
	// record does.
	Controls      int `yaml:"controls" json:"controls"`
	ControlsRight int `yaml:"controls_right" json:"controls_right"`
	// Shared counts the items (criteria and controls) it and another member both answered,
	// pair by pair; Agreed those they answered alike.
	Shared int `yaml:"shared" json:"shared"`
	Agreed int `yaml:"agreed" json:"agreed"`
}

// PanelPair is two members' answers to the controls they both answered Pass or Fail.
type PanelPair struct {
	A string `yaml:"a" json:"a"`
	B string `yaml:"b" json:"b"`
	// PassPass counts the controls both answered Pass, PassFail those A answered Pass and B
	// Fail, and so on.
	PassPass int `yaml:"pass_pass" json:"pass_pass"`
	PassFail int `yaml:"pass_fail" json:"pass_fail"`
	FailPass int `yaml:"fail_pass" json:"fail_pass"`
	FailFail int `yaml:"fail_fail" json:"fail_fail"`
	// Kappa is Cohen's kappa over those counts: their agreement beyond what their own
	// rates of Pass would give by chance; nil with no control in common.
	Kappa *float64 `yaml:"kappa" json:"kappa"`
}

// addPanel counts one request's panel into the run's totals.
func (r *Report) addPanel(p *JudgePanel) {
	if r.Panel == nil {
		r.Panel = &PanelTotals{Rule: p.Rule}
	}
	t := r.Panel
	index := make([]int, len(p.Members))
	for i, m := range p.Members {
		k := 0
		for k < len(t.Members) && (t.Members[k].Model != m.Model || t.Members[k].URL != m.URL) {
			k++
		}
		if k == len(t.Members) {
			t.Members = append(t.Members, PanelMemberTotals{Model: m.Model, URL: m.URL})
		}
		index[i] = k
		mt := &t.Members[k]
		mt.Requests++
		if m.Out != "" {
			mt.Out++
		}
		for id, want := range p.Expected {
			if got, ok := m.Answers[id]; ok {
				mt.Controls++
				if got == want {
					mt.ControlsRight++
				}
			}
		}
	}
	for i := range p.Members {
		for k := i + 1; k < len(p.Members); k++ {
			a, b := p.Members[i], p.Members[k]
			for id, sa := range a.Answers {
				if sb, ok := b.Answers[id]; ok {
					for _, x := range []int{index[i], index[k]} {
						t.Members[x].Shared++
						if sa == sb {
							t.Members[x].Agreed++
						}
					}
				}
			}
			if a.Model > b.Model {
				a, b = b, a // a pair is counted in one order, whatever the members' order
			}
			pair := t.pair(a.Model, b.Model)
			for id := range p.Expected {
				sa, sb := a.Answers[id], b.Answers[id]
				switch {
				case sa == Pass && sb == Pass:
					pair.PassPass++
				case sa == Pass && sb == Fail:
					pair.PassFail++
				case sa == Fail && sb == Pass:
					pair.FailPass++
				case sa == Fail && sb == Fail:
					pair.FailFail++
				}
			}
		}
	}
}

// pair is the totals of members a and b (a before b).
func (t *PanelTotals) pair(a, b string) *PanelPair {
	for i := range t.Pairs {
		if p := &t.Pairs[i]; p.A == a && p.B == b {
			return p
		}
	}
	t.Pairs = append(t.Pairs, PanelPair{A: a, B: b})
	return &t.Pairs[len(t.Pairs)-1]
}

// settle computes each pair's kappa and the panel's effective votes from the counts.
func (t *PanelTotals) settle() {
	var sum float64
	defined := 0
	for i := range t.Pairs {
		p := &t.Pairs[i]
		k, ok := kappa(p.PassPass, p.PassFail, p.FailPass, p.FailFail)
		if !ok {
			p.Kappa = nil
			continue
		}
		p.Kappa = &k
		sum += math.Max(k, 0)
		defined++
	}
	sort.Slice(t.Pairs, func(i, j int) bool { return t.Pairs[i].A+"\x00"+t.Pairs[i].B < t.Pairs[j].A+"\x00"+t.Pairs[j].B })
	n := float64(len(t.Members))
	if defined == 0 {
		t.EffectiveVotes = nil
		t.EffectiveWhy = "no two members answered a control Pass or Fail in common, so how alike they answer is not known"
		return
	}
	rho := sum / float64(defined)
	votes := math.Round(n/(1+(n-1)*rho)*100) / 100
	t.EffectiveVotes, t.EffectiveWhy = &votes, ""
}

// kappa is Cohen's kappa of a 2x2 table; ok is false for an empty one. Two raters who
// agree on every item have kappa 1 even when chance alone would (a table of one kind).
func kappa(pp, pf, fp, ff int) (float64, bool) {
	n := float64(pp + pf + fp + ff)
	if n == 0 {
		return 0, false
	}
	po := float64(pp+ff) / n
	if po == 1 {
		return 1, true
	}
	aPass, bPass := float64(pp+pf)/n, float64(pp+fp)/n
	pe := aPass*bPass + (1-aPass)*(1-bPass)
	k := (po - pe) / (1 - pe)
	return math.Round(k*1000) / 1000, true
}

// String is the panel's line in a report: "3 members, 1.42 effective votes".
func (t *PanelTotals) String() string {
	if t.EffectiveVotes == nil {
		return fmt.Sprintf("%d members (%s); effective votes unknown: %s", len(t.Members), t.Rule, t.EffectiveWhy)
	}
	return fmt.Sprintf("%d members (%s), worth %.2f independent votes on the controls", len(t.Members), t.Rule, *t.EffectiveVotes)
}
