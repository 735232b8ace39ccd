package report

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// Rate is one scenario's decided attempts in one run, and how many passed.
type Rate struct {
	Passed, Decided int
}

// RateChange is the change in the mean pass rate over the scenarios both runs decided
// attempts of, with a paired bootstrap 95% interval: with repeats, a change too small for
// McNemar's flips to show (2 of 3 to 1 of 3) is still measured, and its noise with it.
type RateChange struct {
	Scenarios int     `json:"scenarios" yaml:"scenarios"`
	Before    float64 `json:"before" yaml:"before"`
	After     float64 `json:"after" yaml:"after"`
	Delta     float64 `json:"delta" yaml:"delta"`
	Low       float64 `json:"low" yaml:"low"`
	High      float64 `json:"high" yaml:"high"`
	Resamples int     `json:"resamples" yaml:"resamples"`
}

// Resamples is how many bootstrap samples Bootstrap draws.
const Resamples = 2000

// Bootstrap pairs the scenarios with decided attempts in both runs and resamples them
// with replacement (the pairs kept whole), Resamples times from a fixed seed, so that one
// run's report reads the same each time; nil when no scenario pairs.
func Bootstrap(before, after map[string]Rate) *RateChange {
	var ids []string
	for id, a := range after {
		if b, ok := before[id]; ok && a.Decided > 0 && b.Decided > 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	sort.Strings(ids) // the same pairs in the same order: the same resamples
	diffs := make([]float64, len(ids))
	c := &RateChange{Scenarios: len(ids), Resamples: Resamples}
	for i, id := range ids {
		b, a := rate(before[id]), rate(after[id])
		c.Before += b / float64(len(ids))
		c.After += a / float64(len(ids))
		diffs[i] = a - b
	}
	c.Delta = c.After - c.Before
	rng := rand.New(rand.NewPCG(1, 2))
	means := make([]float64, Resamples)
	for s := range means {
		sum := 0.0
		for range diffs {
			sum += diffs[rng.IntN(len(diffs))]
		}
		means[s] = sum / float64(len(diffs))
	}
	sort.Float64s(means)
	c.Low, c.High = means[int(0.025*Resamples)], means[int(0.975*Resamples)-1]
	return c
}

func rate(r Rate) float64 { return float64(r.Passed) / float64(r.Decided) }

// Says is the change in one line.
func (c *RateChange) Says() string {
	return fmt.Sprintf("pass rate over %d scenario(s) decided in both runs: %.0f%% → %.0f%% (%+.0f points; paired bootstrap 95%% interval %+.0f to %+.0f)",
		c.Scenarios, c.Before*100, c.After*100, c.Delta*100, c.Low*100, c.High*100)
}
