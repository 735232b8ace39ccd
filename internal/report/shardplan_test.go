package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
)

func TestBalance(t *testing.T) {
	got, load := Balance(2, map[string]int64{"a": 10, "b": 7, "c": 5, "d": 4, "e": 2})
	// 10 → 1; 7 → 2; 5 → 2 (7 < 10); 4 → 1 (10 < 12); 2 → 2 (12 < 14).
	assert.Equal(t, map[string]int{"a": 1, "b": 2, "c": 2, "d": 1, "e": 2}, got)
	assert.Equal(t, []int64{14, 14}, load)
	again, _ := Balance(2, map[string]int64{"e": 2, "d": 4, "c": 5, "b": 7, "a": 10})
	assert.Equal(t, got, again, "the same durations make the same plan")
	ties, _ := Balance(3, map[string]int64{"x": 1, "y": 1, "z": 1})
	assert.Equal(t, map[string]int{"x": 1, "y": 2, "z": 3}, ties)
}

func TestEstimates(t *testing.T) {
	h := &History{Runs: []Run{{ID: "r3"}, {ID: "r2"}, {ID: "r1"}}, Scenarios: map[string][]Entry{
		"fast":     {{DurationMs: 100}, {DurationMs: 120}, {DurationMs: 90}},
		"repeated": {{DurationMs: 3000, Attempts: 3}, {}, {DurationMs: 0}},
		"skewed":   {{DurationMs: 100}, {DurationMs: 5000}, {DurationMs: 110}},
	}}
	e := Estimates(h, []string{"fast", "repeated", "skewed", "new", "new5"}, map[string]int{"repeated": 5, "new5": 5}, nil, 10)
	assert.Equal(t, int64(120), e["fast"], "the 90th percentile of 90, 100, 120")
	assert.Equal(t, int64(5000), e["repeated"], "1000 an attempt, and it now repeats 5 times")
	assert.Equal(t, int64(5000), e["skewed"], "a slow run counts: a plan errs long")
	assert.Equal(t, int64(1000), e["new"], "never run: the median of the others per attempt")
	assert.Equal(t, int64(5000), e["new5"])
	only := Estimates(h, []string{"skewed"}, nil, map[string]bool{"r3": true}, 10)
	assert.Equal(t, int64(100), only["skewed"], "durations from the named run only")
	none := Estimates(&History{}, []string{"a"}, nil, nil, 10)
	assert.Equal(t, int64(1000), none["a"])
}

func TestSaveAndLoad(t *testing.T) {
	p := &ShardPlan{Version: ShardPlanVersion, Shards: 2, Agents: map[string]map[string]int{"fake": {"SC-1": 1, "SC-2": 2}}}
	p.Seal()
	path := filepath.Join(t.TempDir(), "shards.json")
	require.NoError(t, p.Save(path))
	got, err := LoadShardPlan(path)
	require.NoError(t, err)
	assert.Equal(t, p.Hash, got.Hash)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(string(data[:len(data)-40])+`"SC-2": 1}}, "ideal_ms": null, "expected_ms": null}`), 0o644))
	_, err = LoadShardPlan(path)
	assert.Error(t, err)
	p.Agents["fake"]["SC-2"] = 1
	require.NoError(t, p.Save(path)) // not sealed again
	_, err = LoadShardPlan(path)
	assert.ErrorContains(t, err, "was changed by hand")
	p.Agents["fake"]["SC-2"] = 3
	p.Seal()
	require.NoError(t, p.Save(path))
	_, err = LoadShardPlan(path)
	assert.ErrorContains(t, err, "puts SC-2 of agent fake on shard 3 of 2")
}

// skewed is a suite of n scenarios whose durations follow a long tail (Pareto, from 2 s,
// shape 1.1, capped at 3 minutes), and what recorded runs say of each: the duration
// with 10% noise.
func skewed(n int) (truth, recorded map[string]int64) {
	rng := rand.New(rand.NewPCG(7, 11))
	truth, recorded = map[string]int64{}, map[string]int64{}
	for i := range n {
		id := fmt.Sprintf("SC-%03d", i)
		ms := math.Min(2000/math.Pow(1-rng.Float64(), 1/1.1), 180_000)
		truth[id] = int64(ms)
		recorded[id] = int64(ms * (1 + 0.1*rng.NormFloat64()))
	}
	return truth, recorded
}

// makespans are each shard's total true duration under an assignment.
func makespans(n int, truth map[string]int64, shardOf func(id string) int) []int64 {
	load := make([]int64, n)
	for id, ms := range truth {
		load[shardOf(id)-1] += ms
	}
	return load
}

func slowestOverIdeal(load []int64) float64 {
	var total, slowest int64
	for _, l := range load {
		total += l
		slowest = max(slowest, l)
	}
	return float64(slowest) / (float64(total) / float64(len(load)))
}

// The balanced plan of a long-tailed suite of 200 scenarios over 4 shards finishes within
// 1.15x of the ideal; the hash of the id does not.
func TestBalancedPlanIsNearIdeal(t *testing.T) {
	truth, recorded := skewed(200)
	plan, _ := Balance(4, recorded)
	balanced := slowestOverIdeal(makespans(4, truth, func(id string) int { return plan[id] }))
	hashed := slowestOverIdeal(makespans(4, truth, func(id string) int { return record.ShardOf(id, 4) }))
	t.Logf("slowest shard over the ideal: hash %.3f, balanced %.3f", hashed, balanced)
	assert.LessOrEqual(t, balanced, 1.15)
	assert.Greater(t, hashed, balanced)
}

// BenchmarkShards runs the long-tailed suite of 200 scenarios on 4 shards, each shard a
// goroutine sleeping each of its scenarios' durations (scaled 250 times down: 8 to 720
// ms), once split by the hash of the id and once by the balanced plan, side by side,
// and reports each one's slowest shard's wall time over the ideal (the total over 4).
func BenchmarkShards(b *testing.B) {
	truth, recorded := skewed(200)
	plan, _ := Balance(4, recorded)
	var total time.Duration
	for _, ms := range truth {
		total += time.Duration(ms) * 4 * time.Microsecond
	}
	ideal := total / 4
	run := func(shardOf func(string) int) time.Duration {
		var wg sync.WaitGroup
		walls := make([]time.Duration, 4)
		for k := 1; k <= 4; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				start := time.Now()
				for id, ms := range truth {
					if shardOf(id) == k {
						time.Sleep(time.Duration(ms) * 4 * time.Microsecond)
					}
				}
				walls[k-1] = time.Since(start)
			}()
		}
		wg.Wait()
		return max(walls[0], walls[1], walls[2], walls[3])
	}
	var hashed, balanced time.Duration
	for b.Loop() {
		hashed += run(func(id string) int { return record.ShardOf(id, 4) })
		balanced += run(func(id string) int { return plan[id] })
	}
	n := time.Duration(b.N)
	b.ReportMetric(float64(hashed/n)/float64(ideal), "hash-slowest/ideal")
	b.ReportMetric(float64(balanced/n)/float64(ideal), "balanced-slowest/ideal")
}
