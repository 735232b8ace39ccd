package paired

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// McNemar's exact p-values against tables computed by hand: with b flips one way and c the
// other, p = 2 * sum_{i<=min(b,c)} C(b+c, i) / 2^(b+c), at most 1.
func TestMcNemarMatchesHandComputedValues(t *testing.T) {
	for _, tc := range []struct {
		b, c int
		p    float64
	}{
		{0, 0, 1},
		{1, 0, 1},          // 2 * 1/2 = 1
		{5, 0, 0.0625},     // 2 * 1/32
		{6, 0, 0.03125},    // 2 * 1/64
		{8, 1, 0.0390625},  // 2 * (1 + 9) / 512 = 20/512
		{10, 2, 0.0385742}, // 2 * (1 + 12 + 66) / 4096 = 158/4096
		{3, 3, 1},          // 2 * (1+6+15+20)/64 = 84/64, capped
		{12, 4, 0.0768127}, // 2 * (1+16+120+560+1820)/65536 = 5034/65536
	} {
		t.Run(fmt.Sprintf("%d-%d", tc.b, tc.c), func(t *testing.T) {
			assert.InDelta(t, tc.p, McNemarExact(tc.b, tc.c), 5e-7)
			assert.InDelta(t, tc.p, McNemarExact(tc.c, tc.b), 5e-7, "two-sided: the order does not matter")
		})
	}
}

func TestCompareAndGate(t *testing.T) {
	before := map[string]string{"A": "Pass", "B": "Pass", "C": "Pass", "D": "Pass", "E": "Pass", "F": "Pass", "G": "Fail", "H": "Unable to Verify", "I": "Pass"}
	after := map[string]string{"A": "Fail", "B": "Fail", "C": "Fail", "D": "Fail", "E": "Fail", "F": "Fail", "G": "Fail", "H": "Fail", "J": "Fail"}
	c := Compare(before, after)
	assert.Equal(t, 7, c.Both, "H was undecided before, I is not in the new run, J not in the old")
	assert.Equal(t, []string{"A", "B", "C", "D", "E", "F"}, c.Regressions)
	assert.Empty(t, c.Fixes)
	assert.InDelta(t, 0.03125, c.P, 1e-9)
	assert.True(t, c.Significant(0, 0.05), "six regressions and no fix")
	assert.False(t, c.Significant(6, 0.05), "no more than the regressions allowed")

	one := Compare(map[string]string{"A": "Pass", "B": "Pass"}, map[string]string{"A": "Fail", "B": "Pass"})
	assert.Equal(t, []string{"A"}, one.Regressions)
	assert.False(t, one.Significant(0, 0.05), "a single flip is noise: p = 1")
	assert.Equal(t, "paired over 2 scenario(s) decided in both runs: 1 pass→fail, 0 fail→pass; McNemar's exact test p = 1", one.Says())
}
