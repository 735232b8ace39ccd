package report

// Whether a change made a suite better or worse, or whether the difference is noise: the
// scenarios two runs both decided, paired, and McNemar's exact test over the ones whose
// status flipped (Compare); a pass rate's change over repeats, bootstrapped (Bootstrap).

import (
	"fmt"
	"math"
	"sort"
)

// Comparison is two runs' decided scenarios, paired by id.
type Comparison struct {
	// Both counts the scenarios that passed or failed in both runs; Regressions those that
	// passed before and fail now, Fixes the other way round.
	Both        int      `json:"both_decided" yaml:"both_decided"`
	Regressions []string `json:"regressions" yaml:"regressions"`
	Fixes       []string `json:"fixes" yaml:"fixes"`
	// P is McNemar's exact two-sided p-value: how likely flips this lopsided are when the
	// change made no difference (1 when nothing flipped).
	P float64 `json:"mcnemar_p" yaml:"mcnemar_p"`
}

// Compare pairs the statuses of the scenarios both runs decided ("Pass" or "Fail").
func Compare(before, after map[string]string) Comparison {
	var c Comparison
	for id, now := range after {
		was, ok := before[id]
		if !ok || !decided(was) || !decided(now) {
			continue
		}
		c.Both++
		switch {
		case was == "Pass" && now == "Fail":
			c.Regressions = append(c.Regressions, id)
		case was == "Fail" && now == "Pass":
			c.Fixes = append(c.Fixes, id)
		}
	}
	sort.Strings(c.Regressions)
	sort.Strings(c.Fixes)
	c.P = McNemarExact(len(c.Regressions), len(c.Fixes))
	return c
}

func decided(s string) bool { return s == "Pass" || s == "Fail" }

// McNemarExact is the exact two-sided p-value of McNemar's test for b flips one way and c
// the other: under no difference each flip goes either way with probability 1/2, so it is
// twice the binomial tail of the smaller count, at most 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	tail := 0.0
	for i := 0; i <= k; i++ {
		tail += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Significant reports whether the comparison is a regression a gate stops on: more than max
// regressions, more regressions than fixes, and a p-value under alpha.
func (c Comparison) Significant(max int, alpha float64) bool {
	return len(c.Regressions) > max && len(c.Regressions) > len(c.Fixes) && c.P < alpha
}

// Says is the comparison in one line, as the reports and the gate print it.
func (c Comparison) Says() string {
	return fmt.Sprintf("paired over %d scenario(s) decided in both runs: %d pass→fail, %d fail→pass; McNemar's exact test p = %.4g",
		c.Both, len(c.Regressions), len(c.Fixes), c.P)
}

// Gate decides a gate over the comparison and says it: "the gate (more than 0
// regression(s), more than fixes, p < 0.05) passes", or "fails: a significant regression".
func (c Comparison) Gate(max int, alpha float64) (fails bool, says string) {
	verdict := "passes"
	if fails = c.Significant(max, alpha); fails {
		verdict = "fails: a significant regression"
	}
	says = fmt.Sprintf("%s; the gate (more than %d regression(s), more than fixes, p < %g) %s", c.Says(), max, alpha, verdict)
	if len(c.Regressions) > 0 {
		says += fmt.Sprintf("\nregressions: %v", c.Regressions)
	}
	return fails, says
}
