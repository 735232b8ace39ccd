// Pricing turns the tokens a run's records hold into money, by the profile's price
// table: the agent's usage at the profile's agent model, each judge's and each simulated
// user's at the model it was asked for. What was not reported is not priced: a scenario
// whose agent reported no usage has no agent cost, never a cost of zero, and the sums say
// how many were left out.

package report

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

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
