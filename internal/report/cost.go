package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// Spend is what the run cost by the price table its profile had (pricing:), in total and
// by feature; nil when the profile had none.
type Spend struct {
	Currency string `json:"currency" yaml:"currency"`
	Total    Cost   `json:"total" yaml:"total"`
	// Features are the costs by the scenarios' feature_id ("" for none), costliest first.
	Features []FeatureCost `json:"features,omitempty" yaml:"features,omitempty"`
	// Unpriced counts the scenarios whose cost leaves something out (Cost.Unpriced says
	// what).
	Unpriced int `json:"unpriced_scenarios" yaml:"unpriced_scenarios"`
}

// FeatureCost is what one feature's scenarios cost.
type FeatureCost struct {
	Feature   string `json:"feature" yaml:"feature"`
	Scenarios int    `json:"scenarios" yaml:"scenarios"`
	Cost      Cost   `json:"cost" yaml:"cost"`
}

// pricer prices a run's scenarios one at a time into spend, by the price table in the
// run's profile.yaml; without one it prices nothing.
type pricer struct {
	st       store.Store
	table    *record.Pricing
	spend    *Spend
	features map[string]*FeatureCost
}

// pricing starts pricing the run in st into r.Spend.
func (r *Report) pricing(st store.Store) *pricer {
	p := &pricer{st: st}
	prof, err := st.Profile()
	if err != nil || prof.Pricing == nil {
		return p
	}
	r.Spend = &Spend{Currency: prof.Pricing.Currency}
	p.table, p.spend, p.features = prof.Pricing, r.Spend, map[string]*FeatureCost{}
	return p
}

// add gives the scenario s, whose verdict is v, its cost, and counts it into the run's.
func (p *pricer) add(s *Scenario, v *record.Verdict) {
	if p.table == nil {
		return
	}
	c := ScenarioCost(p.table, p.st.ScenarioDir(s.ID), v)
	s.Cost = &c
	p.spend.Total.Add(c)
	if len(c.Unpriced) > 0 {
		p.spend.Unpriced++
	}
	f := p.features[s.Feature]
	if f == nil {
		f = &FeatureCost{Feature: s.Feature}
		p.features[s.Feature] = f
	}
	f.Scenarios++
	f.Cost.Add(c)
}

// close lists the run's costs by feature, costliest first.
func (p *pricer) close() {
	if p.table == nil {
		return
	}
	sp := p.spend
	for _, f := range p.features {
		sp.Features = append(sp.Features, *f)
	}
	sort.Slice(sp.Features, func(i, j int) bool {
		a, b := sp.Features[i], sp.Features[j]
		if a.Cost.Total != b.Cost.Total {
			return a.Cost.Total > b.Cost.Total
		}
		return a.Feature < b.Feature
	})
}

// CostOf is a scenario's cost as the page and the markdown show it ("USD 0.0123"), with
// what it leaves out; "" when the run had no price table or the scenario no verdict.
func (r *Report) CostOf(s Scenario) string {
	if r.Spend == nil || s.Cost == nil {
		return ""
	}
	out := fmt.Sprintf("%s %.4f", r.Spend.Currency, s.Cost.Total)
	if len(s.Cost.Unpriced) > 0 {
		out += " (leaves out: " + strings.Join(s.Cost.Unpriced, "; ") + ")"
	}
	return out
}

// costliest is how many scenarios the markdown lists by cost.
const costliest = 10

// spendMarkdown is the run's cost in the markdown: the total, by feature, and the
// costliest scenarios.
func (r *Report) spendMarkdown() string {
	sp := r.Spend
	if sp == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Cost: %s %.4f (agent %.4f, judge %.4f", sp.Currency, sp.Total.Total, sp.Total.Agent, sp.Total.Judge)
	if sp.Total.User > 0 {
		fmt.Fprintf(&b, ", simulated user %.4f", sp.Total.User)
	}
	b.WriteString(")")
	if sp.Unpriced > 0 {
		fmt.Fprintf(&b, "; %d scenario(s) not wholly priced: %s", sp.Unpriced, strings.Join(sp.Total.Unpriced, "; "))
	}
	b.WriteString("\n\n")
	if len(sp.Features) > 1 || (len(sp.Features) == 1 && sp.Features[0].Feature != "") {
		b.WriteString("| feature | scenarios | cost |\n|---|---|---|\n")
		for _, f := range sp.Features {
			name := f.Feature
			if name == "" {
				name = "(no feature_id)"
			}
			fmt.Fprintf(&b, "| %s | %d | %.4f |\n", md(name), f.Scenarios, f.Cost.Total)
		}
		b.WriteString("\n")
	}
	// The costliest, in plan order among equal costs; only they are kept.
	var priced []Scenario
	for s := range r.Scenarios.All() {
		if s.Cost == nil {
			continue
		}
		at := sort.Search(len(priced), func(i int) bool { return priced[i].Cost.Total < s.Cost.Total })
		if at < costliest {
			priced = slices.Insert(priced, at, s)[:min(len(priced)+1, costliest)]
		}
	}
	if len(priced) > 0 {
		b.WriteString("Costliest scenarios: ")
		for i, s := range priced {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %.4f", s.ID, s.Cost.Total)
		}
		b.WriteString("\n\n")
	}
	return b.String()
}
