package report

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestBootstrap(t *testing.T) {
	assert.Nil(t, Bootstrap(map[string]Rate{"a": {1, 1}}, map[string]Rate{"b": {1, 1}}), "nothing pairs")
	// Ten scenarios went from 3 of 3 to 1 of 3: a drop of 67 points, and every resample says
	// so (each pair's difference is the same).
	before, after := map[string]Rate{}, map[string]Rate{}
	for i := range 10 {
		id := string(rune('a' + i))
		before[id], after[id] = Rate{3, 3}, Rate{1, 3}
	}
	c := Bootstrap(before, after)
	require.NotNil(t, c)
	assert.InDelta(t, -2.0/3, c.Delta, 1e-12)
	assert.InDelta(t, -2.0/3, c.Low, 1e-12)
	assert.InDelta(t, -2.0/3, c.High, 1e-12)
	assert.Equal(t, "pass rate over 10 scenario(s) decided in both runs: 100% → 33% (-67 points; paired bootstrap 95% interval -67 to -67)", c.Says())

	// Half dropped a third, half rose a third: no change, and an interval around it.
	for i, id := range []string{"a", "b", "c", "d", "e"} {
		after[id] = Rate{2, 3}
		before[[]string{"f", "g", "h", "i", "j"}[i]], after[[]string{"f", "g", "h", "i", "j"}[i]] = Rate{1, 3}, Rate{2, 3}
	}
	c = Bootstrap(before, after)
	assert.InDelta(t, 0, c.Delta, 1e-12)
	assert.Less(t, c.Low, 0.0)
	assert.Greater(t, c.High, 0.0)
	assert.Equal(t, c, Bootstrap(before, after), "the same runs give the same interval")
	// Undecided attempts are left out: a scenario with none decided in one run is not
	before["k"], after["k"] = Rate{0, 0}, Rate{3, 3}
	assert.Equal(t, 10, Bootstrap(before, after).Scenarios)
}
