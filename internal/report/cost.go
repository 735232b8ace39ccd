// Pricing turns the tokens a run's records hold into money, by the profile's price
// table: the agent's usage at the profile's agent model, each judge's and each simulated
// user's at the model it was asked for. What was not reported is not priced: a scenario
// whose agent reported no usage has no agent cost, never a cost of zero, and the sums say
// how many were left out.

package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
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

// Cost is what some of a run cost.
type Cost struct {
	Agent float64 `json:"agent" yaml:"agent"`
	Judge float64 `json:"judge" yaml:"judge"`
	// User is what a simulated user's model cost.
	User  float64 `json:"simulated_user,omitempty" yaml:"simulated_user,omitempty"`
	Total float64 `json:"total" yaml:"total"`
	// Unpriced says what was left out of the sums: usage not reported, or a model without
	// a price ("agent usage not reported", "judge model m has no price").
	Unpriced []string `json:"unpriced,omitempty" yaml:"unpriced,omitempty"`
}

// PriceOf prices one usage at model; ok is false, with why, when the usage or either count was
// not reported or the model has no price.
func PriceOf(t *record.Pricing, model string, u *record.Usage) (float64, string) {
	p, found := t.Models[model]
	switch {
	case !found:
		return 0, fmt.Sprintf("model %s has no price", model)
	case u == nil || u.Input == nil || u.Output == nil:
		return 0, "usage not reported"
	}
	return (float64(*u.Input)*p.InputPerMillion + float64(*u.Output)*p.OutputPerMillion) / 1e6, ""
}

// VerdictsCost is the cost of one scenario from its attempts' verdicts (the scenario's own
// verdict when it ran once): the agent's usage of each, and its judge's.
func VerdictsCost(t *record.Pricing, attempts []*record.Verdict) Cost {
	var c Cost
	for _, v := range attempts {
		if v == nil {
			continue
		}
		if n, why := PriceOf(t, t.AgentModel, v.Usage); why != "" {
			c.note("agent " + why)
		} else {
			c.Agent += n
		}
		if j := v.Judge; j != nil && !j.Cached {
			// A cached answer was paid for by the run that asked.
			if n, why := PriceOf(t, j.Model, j.Usage); why != "" {
				c.note("judge " + why)
			} else {
				c.Judge += n
			}
		}
		if sim := v.Simulator; sim != nil && sim.Answers > sim.Cached {
			if n, why := PriceOf(t, sim.Model, sim.Usage); why != "" {
				c.note("simulated user " + why)
			} else {
				c.User += n
			}
		}
	}
	c.Total = c.Agent + c.Judge + c.User
	return c
}

// ScenarioCost is the cost of the scenario whose records are in dir and whose verdict is v:
// each attempt's verdict for a repeated one (an attempt whose verdict does not read adds
// nothing), else v's.
func ScenarioCost(t *record.Pricing, dir string, v *record.Verdict) Cost {
	if len(v.Attempts) == 0 {
		return VerdictsCost(t, []*record.Verdict{v})
	}
	vs := make([]*record.Verdict, 0, len(v.Attempts))
	for _, a := range v.Attempts {
		if av, err := store.ReadVerdict(filepath.Join(dir, "attempts", strconv.Itoa(a.Attempt))); err == nil {
			vs = append(vs, av)
		}
	}
	return VerdictsCost(t, vs)
}

// Add counts o into c.
func (c *Cost) Add(o Cost) {
	c.Agent += o.Agent
	c.Judge += o.Judge
	c.User += o.User
	c.Total += o.Total
	for _, u := range o.Unpriced {
		c.note(u)
	}
}

func (c *Cost) note(why string) {
	for _, u := range c.Unpriced {
		if u == why {
			return
		}
	}
	c.Unpriced = append(c.Unpriced, why)
}

// Money writes an amount in the table's currency: "USD 0.0123".
func Money(t *record.Pricing, n float64) string {
	return fmt.Sprintf("%s %.4f", t.Currency, n)
}
