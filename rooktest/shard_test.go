package rooktest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/ratelimit"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
)

func TestParseShard(t *testing.T) {
	none := func(string) string { return "" }
	for in, want := range map[string]shard{"": {}, "1/1": {k: 1, n: 1}, "2/3": {k: 2, n: 3}, " 3 / 3 ": {k: 3, n: 3}} {
		got, err := parseShard("-rook.shard", in, none)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"0/3", "4/3", "1/0", "2", "a/b", "1/2/3", "-1/2"} {
		_, err := parseShard("-rook.shard", in, none)
		assert.EqualError(t, err, fmt.Sprintf("-rook.shard=%q: want K/N with 1 <= K <= N, for example 2/3, or auto", in))
	}
	_, err := readOptions(settingsOf(nil, map[string]string{"ROOKTEST_SHARD": "5/2"}))
	assert.EqualError(t, err, `ROOKTEST_SHARD="5/2": want K/N with 1 <= K <= N, for example 2/3, or auto`, "the twin that was set is named")
	_, err = readOptions(settingsOf(map[string]string{"rook.shard": "5/2"}, map[string]string{"ROOKTEST_SHARD": "1/2"}))
	assert.EqualError(t, err, `-rook.shard="5/2": want K/N with 1 <= K <= N, for example 2/3, or auto`, "the flag wins over its twin")
}

// -rook.shard=auto reads the shard from the CI engine that runs the job.
func TestAutoShard(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		flag string
		env  func(string) string
		want shard
		err  string
	}{
		{"auto", env("BUILDKITE_PARALLEL_JOB", "0", "BUILDKITE_PARALLEL_JOB_COUNT", "3"), shard{k: 1, n: 3}, ""},
		{"auto", env("CIRCLE_NODE_INDEX", "2", "CIRCLE_NODE_TOTAL", "3"), shard{k: 3, n: 3}, ""},
		{"auto/4", env("JOB_COMPLETION_INDEX", "1"), shard{k: 2, n: 4}, ""},
		{"auto", env("JOB_COMPLETION_INDEX", "1"), shard{}, "a Kubernetes Indexed Job sets JOB_COMPLETION_INDEX=1 but not how many shards there are: give -rook.shard=auto/N"},
		{"auto", env("CIRCLE_NODE_INDEX", "3", "CIRCLE_NODE_TOTAL", "3"), shard{}, "CircleCI's CIRCLE_NODE_INDEX=3 is no index from 0 to 2"},
		{"auto/2", env("BUILDKITE_PARALLEL_JOB", "0", "BUILDKITE_PARALLEL_JOB_COUNT", "3"), shard{}, "Buildkite says there are 3 shards, not 2"},
		{"auto", env(), shard{}, "no CI engine's shard variables are set (BUILDKITE_PARALLEL_JOB, CIRCLE_NODE_INDEX, JOB_COMPLETION_INDEX)"},
		{"auto/x", env(), shard{}, "want auto, or auto/N"},
	} {
		got, err := parseShard("-rook.shard", c.flag, c.env)
		if c.err != "" {
			assert.ErrorContains(t, err, c.err, c.flag)
			continue
		}
		require.NoError(t, err, c.flag)
		assert.Equal(t, c.want, got, c.flag)
	}
}

// TestShardsPartitionTheSuite: every scenario is in exactly one of N shards, the shards
// are near even, and adding scenarios moves none that was there.
func TestShardsPartitionTheSuite(t *testing.T) {
	const n = 3
	ids := make([]string, 600)
	for i := range ids {
		ids[i] = fmt.Sprintf("SC-%03d", i)
	}
	owner := map[string]int{}
	sizes := make([]int, n+1)
	for k := 1; k <= n; k++ {
		for _, id := range ids {
			if !(shard{k: k, n: n}).excludes(id) {
				_, twice := owner[id]
				require.False(t, twice, "%s is in shards %d and %d", id, owner[id], k)
				owner[id] = k
				sizes[k]++
			}
		}
	}
	assert.Len(t, owner, len(ids), "the shards together are the whole suite")
	for k := 1; k <= n; k++ {
		assert.InDelta(t, len(ids)/n, sizes[k], float64(len(ids))/n*0.2, "shard %d holds %d of %d", k, sizes[k], len(ids))
	}
	for _, id := range append(ids, "SC-NEW-1", "SC-NEW-2") {
		if k, ok := owner[id]; ok {
			assert.Equal(t, k, shard{k: 1, n: n}.of(id), "%s stays in its shard", id)
		}
	}
	assert.False(t, shard{}.excludes("SC-1"), "no shard runs everything")
	assert.False(t, shard{k: 1, n: 1}.excludes("SC-1"), "1/1 runs everything")
}

func TestDecideShard(t *testing.T) {
	p := &spec.Profile{ID: "p"}
	sc := &scenario.Scenario{Scenario: spec.Scenario{ID: "SC-1"}}
	mine := shard{k: 1, n: 2}.of("SC-1")
	d, why := planOne(options{shard: shard{k: mine, n: 2}}, p, briefFor(sc), nil)
	assert.Equal(t, include, d, why)
	other := 3 - mine
	d, why = planOne(options{shard: shard{k: other, n: 2}}, p, briefFor(sc), nil)
	assert.Equal(t, skip, d)
	assert.Equal(t, fmt.Sprintf("not selected: shard %d/2 runs it (-rook.shard=%d/2)", mine, other), why)
}

func TestRunIDFor(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "profiles", "bank"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "profiles", "bank", "good.yaml"), nil, 0o644))
	assert.Equal(t, "", runIDFor(root, "bank", "good", ""))
	assert.Equal(t, "ci-42", runIDFor(root, "bank", "good", "ci-42"), "one profile: the id as given")
	require.NoError(t, os.WriteFile(filepath.Join(root, "profiles", "bank", "broken.yaml"), nil, 0o644))
	assert.Equal(t, "ci-42-good", runIDFor(root, "bank", "good", "ci-42"), "several profiles: one run each")
	assert.Equal(t, "ci-42-broken", runIDFor(root, "bank", "broken", "ci-42"))
}

func TestParseGate(t *testing.T) {
	g, err := parseGate("on", "-rook.gate")
	require.NoError(t, err)
	assert.Equal(t, gate{on: true, alpha: 0.05}, g)
	g, err = parseGate("alpha=0.01, max-regressions=2,base=2026-12-01T10-00-00Z", "-rook.gate")
	require.NoError(t, err)
	assert.Equal(t, gate{on: true, alpha: 0.01, max: 2, base: "2026-12-01T10-00-00Z"}, g)
	g, err = parseGate("", "-rook.gate")
	require.NoError(t, err)
	assert.False(t, g.on)
	for in, want := range map[string]string{
		"alpha=2":            "alpha=2: out of (0, 1)",
		"max-regressions=-1": "max-regressions=-1: negative",
		"base=../x":          "base=../x: not a run id",
		"strict":             `"strict" is not key=value`,
		"beta=1":             `unknown key "beta"`,
	} {
		_, err := parseGate(in, "-rook.gate")
		assert.ErrorContains(t, err, want, in)
	}
}

func TestParseRateAndShare(t *testing.T) {
	f, err := parseRate("60/m", "-rook.rate")
	require.NoError(t, err)
	_, says := limiter(f, ratelimit.Rate{}, 4)
	assert.Equal(t, "15/m, this shard's share of 60/m over 4 shards", says)
	f, err = parseRate("60/m/shard", "-rook.rate")
	require.NoError(t, err)
	_, says = limiter(f, ratelimit.Rate{}, 4)
	assert.Equal(t, "60/m", says, "one shard's own rate is not shared")
	_, says = limiter(rateFlag{}, ratelimit.Rate{N: 2, Per: time.Second}, 1)
	assert.Equal(t, "2/s", says, "the profile's rate, without a flag")
	l, says := limiter(rateFlag{}, ratelimit.Rate{}, 3)
	assert.Nil(t, l)
	assert.Empty(t, says)
	_, err = parseRate("60/min", "-rook.rate")
	assert.ErrorContains(t, err, `-rook.rate="60/min": want R/s, R/m or R/h with R a whole number above 0, for example 60/m, or R/m/shard for one shard's own`)
}

// The profile's rate is read by package ratelimit from what the profile wrote, and one
// that does not read is an error at its place in the file.
func TestProfileRate(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hook.mjs"), nil, 0o644))
	p, err := spec.ParseProfile("profiles/a/p.yaml", dir, []byte("id: p\nhooks: {execute: hook.mjs}\nrate: 2/s\n"))
	require.NoError(t, err)
	r, err := profileRate(p)
	require.NoError(t, err)
	assert.Equal(t, ratelimit.Rate{N: 2, Per: time.Second}, r)
	p.Rate = "2/fortnight"
	_, err = profileRate(p)
	assert.EqualError(t, err, `profiles/a/p.yaml:3:7: rate "2/fortnight": want R/s, R/m or R/h with R a whole number above 0, for example 60/m`)
	p.Rate = ""
	r, err = profileRate(p)
	require.NoError(t, err)
	assert.Zero(t, r, "no rate, no bound")
}
