package rooktest

import (
	"fmt"
	"strings"

	"github.com/rookgo/rookgo/internal/ratelimit"
	"github.com/rookgo/rookgo/internal/spec"
)

// rateFlag is -rook.rate or -rook.judge-rate: the API's rate over every shard of the
// suite (R/m), which each of N shards takes a share of, or one shard's own (R/m/shard).
type rateFlag struct {
	rate     ratelimit.Rate
	perShard bool
}

// parseRate reads -rook.rate or -rook.judge-rate, given as name.
func parseRate(s, name string) (rateFlag, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return rateFlag{}, nil
	}
	own, perShard := strings.CutSuffix(s, "/shard")
	r, err := ratelimit.Parse(own)
	if err != nil {
		return rateFlag{}, fmt.Errorf("%s=%w, or R/m/shard for one shard's own", name, err)
	}
	return rateFlag{rate: r, perShard: perShard}, nil
}

// profileRate is the rate profile p sets: zero for none, and an error at its place in the
// file when it cannot be read.
func profileRate(p *spec.Profile) (ratelimit.Rate, error) {
	if p.Rate == "" {
		return ratelimit.Rate{}, nil
	}
	r, err := ratelimit.Parse(p.Rate)
	if err != nil {
		return r, p.Err(p.RateAt, "rate", err)
	}
	return r, nil
}

// limiter is the rate this process keeps: the flag's, else the profile's, shared by the
// shards unless the flag says it is one shard's own; and how it says so ("" for none).
func limiter(f rateFlag, profile ratelimit.Rate, shards int) (*ratelimit.Limiter, string) {
	r, own := f.rate, f.perShard
	if r.N == 0 {
		r = profile
	}
	if r.N == 0 {
		return nil, ""
	}
	if own || shards <= 1 {
		return ratelimit.New(r), r.String()
	}
	share := r.Share(shards)
	return ratelimit.New(share), fmt.Sprintf("%s, this shard's share of %s over %d shards", share, r, shards)
}
