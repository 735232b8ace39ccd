package rooktest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
)

// shard is -rook.shard=K/N: this process runs the scenarios whose id hashes to K of N, or
// that the shard plan (-rook.shard-plan) puts on K. The zero shard runs everything.
type shard struct {
	k, n int
	// plan is the plan's assignment of this agent's scenarios, planHash its hash; nil and
	// "" without a plan.
	plan     map[string]int
	planHash string
}

// parseShard reads "K/N" with 1 <= K <= N; "" is the zero shard; "auto" (or "auto/N") reads
// K and N from the CI engine running the job (autoShard).
func parseShard(name, s string, getenv func(string) string) (shard, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return shard{}, nil
	}
	if s == "auto" || strings.HasPrefix(s, "auto/") {
		return autoShard(name, s, getenv)
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, errK := strconv.Atoi(strings.TrimSpace(ks))
	n, errN := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || errK != nil || errN != nil || n < 1 || k < 1 || k > n {
		return shard{}, fmt.Errorf("%s=%q: want K/N with 1 <= K <= N, for example 2/3, or auto", name, s)
	}
	return shard{k: k, n: n}, nil
}

// ciEngines are the CI engines whose parallel jobs say their index (from 0) and count.
// A Kubernetes Indexed Job says only its index: its count comes from auto/N.
var ciEngines = []struct{ name, index, count string }{
	{"Buildkite", "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT"},
	{"CircleCI", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL"},
	{"a Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", ""},
}

// autoShard is the shard the CI engine's variables name.
func autoShard(name, s string, getenv func(string) string) (shard, error) {
	given := 0
	if _, ns, ok := strings.Cut(s, "/"); ok {
		n, err := strconv.Atoi(ns)
		if err != nil || n < 1 {
			return shard{}, fmt.Errorf("%s=%s: want auto, or auto/N with N the number of shards", name, s)
		}
		given = n
	}
	for _, e := range ciEngines {
		idx := getenv(e.index)
		if idx == "" {
			continue
		}
		count := strconv.Itoa(given)
		if e.count != "" && getenv(e.count) != "" {
			count = getenv(e.count)
		}
		i, errI := strconv.Atoi(idx)
		n, errN := strconv.Atoi(count)
		switch {
		case errN != nil || n < 1:
			return shard{}, fmt.Errorf("%s=%s: %s sets %s=%s but not how many shards there are: give -rook.shard=auto/N", name, s, e.name, e.index, idx)
		case errI != nil || i < 0 || i >= n:
			return shard{}, fmt.Errorf("%s=%s: %s's %s=%s is no index from 0 to %d", name, s, e.name, e.index, idx, n-1)
		case given > 0 && given != n:
			return shard{}, fmt.Errorf("%s=%s: %s says there are %d shards, not %d", name, s, e.name, n, given)
		}
		return shard{k: i + 1, n: n}, nil
	}
	var vars []string
	for _, e := range ciEngines {
		vars = append(vars, e.index)
	}
	return shard{}, fmt.Errorf("%s=%s: no CI engine's shard variables are set (%s); on GitHub Actions, set ROOKTEST_SHARD: ${{ matrix.shard }}/N instead", name, s, strings.Join(vars, ", "))
}

// withPlan reads the shard plan at path (relative to the module root) for agent.
func (s shard) withPlan(root, path, agent string) (shard, error) {
	if path == "" {
		return s, nil
	}
	if s.n == 0 {
		return s, fmt.Errorf("-rook.shard-plan=%s needs -rook.shard=K/N: a plan says which shard runs what", path)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	if _, err := os.Stat(path); err != nil {
		return s, fmt.Errorf("-rook.shard-plan: %w; make one with rookgen shards -n %d", err, s.n)
	}
	p, err := report.LoadShardPlan(path)
	if err != nil {
		return s, fmt.Errorf("-rook.shard-plan: %w", err)
	}
	if p.Shards != s.n {
		return s, fmt.Errorf("-rook.shard-plan: %s splits the suite in %d, not %d: make it again with rookgen shards -n %d", path, p.Shards, s.n, s.n)
	}
	s.plan, s.planHash = p.Agents[agent], p.Hash
	return s, nil
}

// of is the shard, 1 to n, that runs scenario id: the plan's, else record.ShardOf's.
func (s shard) of(id string) int {
	if k, ok := s.plan[id]; ok {
		return k
	}
	return record.ShardOf(id, s.n)
}

// excludes reports whether another shard runs scenario id.
func (s shard) excludes(id string) bool { return s.n > 1 && s.of(id) != s.k }

func (s shard) String() string { return fmt.Sprintf("%d/%d", s.k, s.n) }

// record is the shard as run.yaml keeps it, nil for the zero shard. Its suite revision
// hashes every scenario id and file hash of the suite, so that the shards of a CI run are
// known to have run one suite; its plan is the plan's hash.
func (s shard) record(suite Suite) *record.Shard {
	if s.n == 0 {
		return nil
	}
	h := sha256.New()
	for _, sc := range suite.Scenarios {
		fmt.Fprintf(h, "%s %s\n", sc.ID, sc.SHA256)
	}
	return &record.Shard{Index: s.k, Count: s.n, SuiteRevision: "sha256:" + hex.EncodeToString(h.Sum(nil)), Plan: s.planHash}
}
