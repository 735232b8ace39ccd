package rooktest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
)

// shard is -rook.shard=K/N: this process runs the scenarios whose id hashes to K of N.
// The zero shard runs everything.
type shard struct{ k, n int }

// parseShard reads "K/N" with 1 <= K <= N; "" is the zero shard.
func parseShard(name, s string) (shard, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return shard{}, nil
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, errK := strconv.Atoi(strings.TrimSpace(ks))
	n, errN := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || errK != nil || errN != nil || n < 1 || k < 1 || k > n {
		return shard{}, fmt.Errorf("%s=%q: want K/N with 1 <= K <= N, for example 2/3", name, s)
	}
	return shard{k, n}, nil
}

// of is the shard, 1 to n, that runs scenario id (record.ShardOf).
func (s shard) of(id string) int { return record.ShardOf(id, s.n) }

// excludes reports whether another shard runs scenario id.
func (s shard) excludes(id string) bool { return s.n > 1 && s.of(id) != s.k }

func (s shard) String() string { return fmt.Sprintf("%d/%d", s.k, s.n) }

// record is the shard as run.yaml keeps it, nil for the zero shard. Its suite revision
// hashes every scenario id and file hash of the suite, so that the shards of a CI run are
// known to have run one suite.
func (s shard) record(suite Suite) *record.Shard {
	if s.n == 0 {
		return nil
	}
	h := sha256.New()
	for _, sc := range suite.Scenarios {
		fmt.Fprintf(h, "%s %s\n", sc.ID, sc.SHA256)
	}
	return &record.Shard{Index: s.k, Count: s.n, SuiteRevision: "sha256:" + hex.EncodeToString(h.Sum(nil))}
}
