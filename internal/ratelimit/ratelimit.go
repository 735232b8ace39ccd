// Package ratelimit bounds how often something starts: at most N starts in any window of
// a period (a sliding window over the last N starts, so that "60 a minute" holds for
// every 60 seconds, not only on the minute), and a pause that an API's Retry-After
// imposes on every start until it ends.
package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Rate is N starts per period.
type Rate struct {
	N   int
	Per time.Duration
}

func (r Rate) String() string {
	unit := map[time.Duration]string{time.Second: "s", time.Minute: "m", time.Hour: "h"}[r.Per]
	if unit == "" {
		return fmt.Sprintf("%d per %s", r.N, r.Per)
	}
	return fmt.Sprintf("%d/%s", r.N, unit)
}

// Parse reads "R/s", "R/m" or "R/h" with R a whole number above 0.
func Parse(s string) (Rate, error) {
	ns, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	per, known := map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour}[strings.TrimSpace(unit)]
	if !ok || err != nil || n < 1 || !known {
		return Rate{}, fmt.Errorf("%q: want R/s, R/m or R/h with R a whole number above 0, for example 60/m", s)
	}
	return Rate{N: n, Per: per}, nil
}

// Share is a shard's part of the rate over shards: N/shards in the same period, or, when
// that is less than one, one start in a period that many times longer.
func (r Rate) Share(shards int) Rate {
	if shards <= 1 {
		return r
	}
	if r.N >= shards {
		return Rate{N: r.N / shards, Per: r.Per}
	}
	return Rate{N: 1, Per: r.Per * time.Duration(shards) / time.Duration(r.N)}
}

// Limiter lets at most Rate.N starts through in any window of Rate.Per, and none while
// paused. The zero Rate lets everything through, pauses aside.
//
// A start is counted from when it was let through, and, once the caller says when the
// thing it let through actually began (Started: a process takes some milliseconds to
// start), from then; and each window is kept a margin longer than Per (a twentieth of it,
// at most 250 ms), so that what the API sees, a little later still, keeps the rate too.
type Limiter struct {
	rate   Rate
	mu     sync.Mutex
	starts []*Ticket // the last N starts, oldest first
	until  time.Time // no start before it
}

// Ticket is one start the limiter let through.
type Ticket struct {
	at time.Time
	// Waited is how long Wait held the start, and Why what held it longest: the rate, or
	// a wait asked for (Pause).
	Waited time.Duration
	Why    string
}

// New is a limiter of rate r.
func New(r Rate) *Limiter { return &Limiter{rate: r} }

// margin is how much longer than Per each window is kept.
func (l *Limiter) margin() time.Duration { return min(l.rate.Per/20, 250*time.Millisecond) }

// Wait blocks until a start is allowed, counts it, and returns its ticket; it gives up
// when ctx ends.
func (l *Limiter) Wait(ctx context.Context) (*Ticket, error) {
	if l == nil {
		return &Ticket{at: time.Now()}, nil
	}
	began, why := time.Now(), ""
	for {
		l.mu.Lock()
		now := time.Now()
		next, held := l.until, "the agent's API asked to wait (retry_after_ms)"
		if l.rate.N > 0 && len(l.starts) == l.rate.N {
			if free := l.starts[0].at.Add(l.rate.Per + l.margin()); free.After(next) {
				next, held = free, fmt.Sprintf("the rate of %s: %d started in the last %s", l.rate, l.rate.N, l.rate.Per)
			}
		}
		if next.After(now) && why == "" {
			why = held
		}
		if !next.After(now) {
			t := &Ticket{at: now, Waited: now.Sub(began), Why: why}
			if l.rate.N > 0 {
				if len(l.starts) == l.rate.N {
					l.starts = l.starts[1:]
				}
				l.starts = append(l.starts, t)
			}
			l.mu.Unlock()
			return t, nil
		}
		l.mu.Unlock()
		timer := time.NewTimer(next.Sub(now))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
	}
}

// Started says when what the ticket let through began; the limiter counts the start from
// then when it is later.
func (l *Limiter) Started(t *Ticket, at time.Time) {
	if l == nil || t == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if at.After(t.at) {
		t.at = at
	}
}

// At is when the ticket's start counts from.
func (t *Ticket) At() time.Time { return t.at }

// Pause holds every start for d from now (a later pause already set stands).
func (l *Limiter) Pause(d time.Duration) {
	if l == nil || d <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if until := time.Now().Add(d); until.After(l.until) {
		l.until = until
	}
}
