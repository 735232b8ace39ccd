// How many scenarios run at once (-rook.concurrency): a fixed number, or one the run
// follows from how much of the machine they take.
//
// An automatic limit is set from what the run measures, never guessed from the hooks'
// names: over each window it compares the CPU time the hooks and the test process used
// with the time the scenarios in flight held their slots. A slot that mostly waits (an
// agent answering over the network) takes little of a core, so more fit; one that starts
// a heavy interpreter takes most of one, so about as many as there are cores fit. The
// limit aims at a little under the machine's cores (slotTarget), so that what is in flight
// does not queue for CPU and stretch every scenario's wall time, and it never passes the
// ceiling the caller gives (the profile's concurrency, which says what the agent bears).

package rooktest

import (
	"math"
	"sync"
	"time"
)

// slotTarget is the share of the machine's cores an automatic limit aims to keep busy.
const slotTarget = 0.9

// slotSaturated is the share of the machine's cores above which a window counts as full.
const slotSaturated = 0.95

// slotWindow is how long an automatic limit measures before it moves.
const slotWindow = 250 * time.Millisecond

// slotAuto configures an automatic limit.
type slotAuto struct {
	// Ceiling is the most in flight at once (at least 1).
	Ceiling int
	// Cores are the cores the run may use (GOMAXPROCS, at least 1).
	Cores int
	// CPU is the CPU time used so far by the hooks and the test process; it only grows.
	CPU func() time.Duration
	// Now is the clock; nil for time.Now.
	Now func() time.Time
}

// slotLimiter admits work up to its limit.
type slotLimiter struct {
	mu       sync.Mutex
	freed    *sync.Cond
	limit    int
	inflight int
	autoOn   *slotAuto

	// The window being measured: since when, the CPU used before it, and the slot time
	// (in flight times wall time) held in it so far.
	start, last time.Time
	cpu0        time.Duration
	held        time.Duration
	ended       int // scenarios that ended in the window
}

// fixedSlots is a limiter of n at once (at least 1).
func fixedSlots(n int) *slotLimiter {
	l := &slotLimiter{limit: max(n, 1)}
	l.freed = sync.NewCond(&l.mu)
	return l
}

// autoSlots is an automatic limiter. It starts at the cores (or the ceiling, if lower) and
// moves once per slotWindow in which a scenario ended: up to what the window measured at
// once (a suite of slow scenarios that only wait must not spend its first minutes
// doubling), down by half at most.
func autoSlots(a slotAuto) *slotLimiter {
	if a.Now == nil {
		a.Now = time.Now
	}
	a.Ceiling, a.Cores = max(a.Ceiling, 1), max(a.Cores, 1)
	l := fixedSlots(min(a.Cores, a.Ceiling))
	l.autoOn = &a
	l.start, l.last, l.cpu0 = a.Now(), a.Now(), a.CPU()
	return l
}

// Acquire waits for a slot.
func (l *slotLimiter) Acquire() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.inflight >= l.limit {
		l.freed.Wait()
	}
	l.tick()
	l.inflight++
}

// Release gives a slot back, when the scenario that held it has ended.
func (l *slotLimiter) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tick()
	l.inflight--
	if l.autoOn != nil {
		l.ended++
		l.adjust()
	}
	l.freed.Broadcast()
}

// Limit is how many may be in flight now.
func (l *slotLimiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit
}

// tick adds the slot time held since the last change of what is in flight.
func (l *slotLimiter) tick() {
	if l.autoOn == nil {
		return
	}
	now := l.autoOn.Now()
	l.held += time.Duration(l.inflight) * now.Sub(l.last)
	l.last = now
}

// adjust moves the limit once a window has passed: to the number of slots that, using
// the CPU a slot used in the window, keeps slotTarget of the cores busy, and never below
// slotTarget of the cores (a slot that takes several cores is bounded by the ceiling alone).
// A window that kept the machine full says only that a slot wants at least its share of
// it, not how much more: the limit then halves, down to that floor, until a window shows
// room.
func (l *slotLimiter) adjust() {
	a := l.autoOn
	elapsed := l.last.Sub(l.start)
	if elapsed < slotWindow || l.ended == 0 || l.held <= 0 {
		return
	}
	cpu := a.CPU()
	used, held := cpu-l.cpu0, l.held
	l.start, l.cpu0, l.held, l.ended = l.last, cpu, 0, 0
	floor := min(max(int(math.Round(slotTarget*float64(a.Cores))), 1), a.Ceiling)
	if used <= 0 {
		l.limit = min(l.limit*2, a.Ceiling) // nothing measurable: the slots only wait
		return
	}
	perSlot := float64(used) / float64(held) // the cores a slot kept busy
	want := max(int(slotTarget*float64(a.Cores)/perSlot), floor)
	if busy := float64(used) / (float64(a.Cores) * float64(elapsed)); busy >= slotSaturated {
		l.limit = max(min(want, l.limit/2), floor)
		return
	}
	l.limit = min(max(want, l.limit/2), a.Ceiling)
}
