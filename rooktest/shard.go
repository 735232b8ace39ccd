package rooktest

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
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

// of is the shard, 1 to n, that runs scenario id. It depends on the id alone, so the
// shards are disjoint, together they are the whole suite, and adding or removing a
// scenario moves no other.
func (s shard) of(id string) int {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id)) // a hash's Write never fails
	return int(h.Sum64()%uint64(s.n)) + 1
}

// excludes reports whether another shard runs scenario id.
func (s shard) excludes(id string) bool { return s.n > 1 && s.of(id) != s.k }

func (s shard) String() string { return fmt.Sprintf("%d/%d", s.k, s.n) }
