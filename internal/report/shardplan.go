package report

// Shard plans: each agent's suite split over N shards by time rather than by count, every
// scenario's expected duration from its recorded runs, placed longest first on the shard
// with the least expected time so far (LPT), so that the slowest shard of a CI matrix
// finishes near the total over N. A scenario the plan does not know goes by the hash of its
// id, as without a plan.

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/store"
)

// ShardPlanFile is where rookgen shards writes the plan, relative to the module root.
const ShardPlanFile = ".rook/shards.json"

// ShardPlanVersion is the plan file's version.
const ShardPlanVersion = 1

// ShardPlan assigns each known scenario of each agent to a shard, 1 to Shards.
type ShardPlan struct {
	Version int `json:"version"`
	Shards  int `json:"shards"`
	// Hash is the SHA-256 of the shard count and every assignment: run.yaml records it,
	// and rookgen report -merge refuses shards that ran different plans.
	Hash string `json:"hash"`
	// From says which runs the durations came from.
	From   string                    `json:"from"`
	Agents map[string]map[string]int `json:"agents"`
	// ExpectedMs is each agent's expected time per shard (index 0 is shard 1), and
	// IdealMs its total over Shards.
	ExpectedMs map[string][]int64 `json:"expected_ms"`
	IdealMs    map[string]int64   `json:"ideal_ms"`
}

// Balance places the scenarios, by their expected milliseconds, on n shards: longest
// first, each on the shard with the least time so far (the lowest-numbered on a tie), ids
// in order among equal times, so that the same durations always make the same plan. It
// returns the assignment and each shard's expected time.
func Balance(n int, expected map[string]int64) (map[string]int, []int64) {
	ids := make([]string, 0, len(expected))
	for id := range expected {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if c := cmp.Compare(expected[b], expected[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	load := make([]int64, n)
	out := make(map[string]int, len(ids))
	for _, id := range ids {
		k := 0
		for i := 1; i < n; i++ {
			if load[i] < load[k] {
				k = i
			}
		}
		load[k] += expected[id]
		out[id] = k + 1
	}
	return out, load
}

// Estimates are the expected milliseconds of each of ids: a high percentile (the 90th) of
// its newest recorded durations (at most recent of them) per attempt, times its repeat; for
// one never run, the median of the others' per attempt (1 s when none ever ran), times its
// repeat. runs, when not
// empty, limits the durations to those runs.
func Estimates(h *History, ids []string, repeat map[string]int, runs map[string]bool, recent int) map[string]int64 {
	out := map[string]int64{}
	var known []int64
	var unknown []string
	for _, id := range ids {
		var per []int64
		for i, e := range h.Scenarios[id] {
			if len(per) == recent || (len(runs) > 0 && !runs[h.Runs[i].ID]) || e.DurationMs <= 0 {
				continue
			}
			per = append(per, e.DurationMs/int64(max(1, e.Attempts)))
		}
		if len(per) == 0 {
			unknown = append(unknown, id)
			continue
		}
		slices.Sort(per)
		p90 := per[(len(per)*9)/10]
		out[id] = p90 * int64(max(1, repeat[id]))
		known = append(known, p90)
	}
	fill := int64(1000)
	if len(known) > 0 {
		slices.Sort(known)
		fill = known[len(known)/2]
	}
	for _, id := range unknown {
		out[id] = fill * int64(max(1, repeat[id]))
	}
	return out
}

// Seal sets the plan's hash.
func (p *ShardPlan) Seal() {
	p.Hash = p.digest()
}

func (p *ShardPlan) digest() string {
	h := sha256.New()
	fmt.Fprintf(h, "shards %d\n", p.Shards)
	agents := make([]string, 0, len(p.Agents))
	for a := range p.Agents {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	for _, a := range agents {
		ids := make([]string, 0, len(p.Agents[a]))
		for id := range p.Agents[a] {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			fmt.Fprintf(h, "%s %s %d\n", a, id, p.Agents[a][id])
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Save writes the plan to path.
func (p *ShardPlan) Save(path string) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return store.WriteFile(path, append(b, '\n'))
}

// LoadShardPlan reads a plan and checks it: its hash must be its assignments', every shard in 1 to
// Shards.
func LoadShardPlan(path string) (*ShardPlan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read shard plan: %w", err)
	}
	var p ShardPlan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s is not a shard plan: %w", path, err)
	}
	if p.Version != ShardPlanVersion || p.Shards < 1 {
		return nil, fmt.Errorf("%s is not a shard plan of version %d for at least one shard", path, ShardPlanVersion)
	}
	for a, ids := range p.Agents {
		for id, k := range ids {
			if k < 1 || k > p.Shards {
				return nil, fmt.Errorf("%s puts %s of agent %s on shard %d of %d", path, id, a, k, p.Shards)
			}
		}
	}
	if got := p.digest(); got != p.Hash {
		return nil, fmt.Errorf("%s was changed by hand: its hash is %s, its assignments' %s; make it again with rookgen shards", path, p.Hash, got)
	}
	return &p, nil
}

// Says is the plan in a line per agent: each shard's expected time against the ideal.
func (p *ShardPlan) Says() string {
	var lines []string
	agents := make([]string, 0, len(p.ExpectedMs))
	for a := range p.ExpectedMs {
		agents = append(agents, a)
	}
	sort.Strings(agents)
	for _, a := range agents {
		var slowest int64
		parts := make([]string, len(p.ExpectedMs[a]))
		for i, ms := range p.ExpectedMs[a] {
			parts[i] = fmt.Sprintf("%.1fs", float64(ms)/1000)
			slowest = max(slowest, ms)
		}
		ratio := 1.0
		if p.IdealMs[a] > 0 {
			ratio = float64(slowest) / float64(p.IdealMs[a])
		}
		lines = append(lines, fmt.Sprintf("%s: %d scenario(s); expected per shard %s; slowest %.2fx the ideal (total / %d)",
			a, len(p.Agents[a]), strings.Join(parts, ", "), ratio, p.Shards))
	}
	return strings.Join(lines, "\n")
}
