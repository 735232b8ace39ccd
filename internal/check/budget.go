package check

import (
	"fmt"
	"strings"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// The checks on what the scenario cost: tokens, time and turns.
func init() {
	register(&Kind{Name: "usage", Turn: true, Params: []string{"input_max", "output_max", "total_max"}, Parse: func(p Params) Check {
		c := &Usage{InputMax: p.Int("input_max"), OutputMax: p.Int("output_max"), TotalMax: p.Int("total_max")}
		if !p.Has("input_max") && !p.Has("output_max") && !p.Has("total_max") {
			p.Errorf("", "check usage needs params.input_max, output_max or total_max")
		}
		return c
	}})
	register(&Kind{Name: "latency", Turn: true, Params: []string{"max_ms", "per"}, Parse: func(p Params) Check {
		c := &Latency{Per: "turn"}
		if p.Require("max_ms") {
			if n := p.Int("max_ms"); n != nil {
				c.MaxMs = *n
			}
		}
		if p.Has("per") {
			c.Per = p.String("per")
			oneOf(p, "per", c.Per, "turn", "scenario")
		}
		return c
	}})
	register(&Kind{Name: "turns", Params: []string{"max"}, Parse: func(p Params) Check {
		c := &Turns{}
		if p.Require("max") {
			if n := p.Int("max"); n != nil {
				c.Max = *n
			}
		}
		return c
	}})
}

// Usage passes when the reported tokens are within every budget given. A scenario that
// grades usage is unrunnable against a profile whose hooks report none.
type Usage struct {
	InputMax, OutputMax, TotalMax *int
}

func (c *Usage) Detail() string { return "" }

func (c *Usage) Observes() Observations { return ObservesReply | ObservesUsage }

func (c *Usage) Expected() string {
	var parts []string
	if c.InputMax != nil {
		parts = append(parts, fmt.Sprintf("input <= %d", *c.InputMax))
	}
	if c.OutputMax != nil {
		parts = append(parts, fmt.Sprintf("output <= %d", *c.OutputMax))
	}
	if c.TotalMax != nil {
		parts = append(parts, fmt.Sprintf("total <= %d", *c.TotalMax))
	}
	return "tokens: " + strings.Join(parts, ", ")
}

func (c *Usage) Judge(ev *observe.Observations) Result {
	seen := ev.Usage()
	u := seen.Value
	need := (c.InputMax != nil || c.TotalMax != nil) && u.Input == nil || (c.OutputMax != nil || c.TotalMax != nil) && u.Output == nil
	// Both counts known and the usage still not whole is a loss (a count printed under a
	// key the contract does not read): what was read may not be what was used.
	if need || u.Input != nil && u.Output != nil && !seen.Complete {
		return unable(record.NotObservable, seen.Gap()+": a count that was not reported is not zero")
	}
	var achieved []string
	ok := true
	within := func(budget *int, name string, n int64) {
		if budget != nil {
			ok = ok && n <= int64(*budget)
			achieved = append(achieved, fmt.Sprintf("%s %d", name, n))
		}
	}
	if u.Input != nil {
		within(c.InputMax, "input", *u.Input)
	}
	if u.Output != nil {
		within(c.OutputMax, "output", *u.Output)
	}
	if u.Input != nil && u.Output != nil {
		within(c.TotalMax, "total", *u.Input+*u.Output)
	}
	return Result{Status: passIf(ok), Achieved: "used " + strings.Join(achieved, ", ") + " tokens",
		Evidence: "usage: " + u.String()}
}

// Latency passes when the slowest turn (Per turn) or all turns together (Per scenario)
// took at most MaxMs, as execute was measured.
type Latency struct {
	MaxMs int
	Per   string
}

func (c *Latency) Detail() string { return "" }

func (c *Latency) Observes() Observations { return ObservesReply | ObservesLatency }

func (c *Latency) Expected() string {
	if c.Per == "scenario" {
		return fmt.Sprintf("execute takes at most %d ms in all", c.MaxMs)
	}
	return fmt.Sprintf("every turn takes at most %d ms", c.MaxMs)
}

func (c *Latency) Judge(ev *observe.Observations) Result {
	var worst, total int64
	var parts []string
	agent, hook := 0, 0
	for _, t := range ev.Turns().Value {
		worst = max(worst, t.LatencyMs)
		total += t.LatencyMs
		if t.AgentLatency {
			agent++
			parts = append(parts, fmt.Sprintf("turn %d: %d ms (the agent's, as the hook timed it; the hook took %d ms)", t.N, t.LatencyMs, t.HookMs))
		} else {
			hook++
			parts = append(parts, fmt.Sprintf("turn %d: %d ms (the hook process's)", t.N, t.LatencyMs))
		}
	}
	r := Result{Evidence: strings.Join(parts, ", ")}
	got := worst
	if c.Per == "scenario" {
		got, r.Achieved = total, fmt.Sprintf("execute took %d ms in all", total)
	} else {
		r.Achieved = fmt.Sprintf("the slowest turn took %d ms", worst)
	}
	if hook > 0 {
		// Said where a reader looks: the hook's start is in the time, not only the agent's.
		r.Achieved += fmt.Sprintf("; %d of %d turn(s) timed as the hook process, which includes starting it: report latency_ms from execute to time the agent alone", hook, agent+hook)
	}
	r.Status = passIf(got <= int64(c.MaxMs))
	return r
}

// Turns passes when the scenario took at most Max turns.
type Turns struct {
	Max int
}

func (c *Turns) Detail() string { return "" }

func (c *Turns) Observes() Observations { return ObservesReply }

func (c *Turns) Expected() string { return fmt.Sprintf("at most %d turn(s)", c.Max) }

func (c *Turns) Judge(ev *observe.Observations) Result {
	n := len(ev.Turns().Value)
	return Result{Status: passIf(n <= c.Max), Achieved: fmt.Sprintf("the scenario took %d turn(s)", n),
		Evidence: fmt.Sprintf("%d execute call(s) recorded", n)}
}
