package otlp

import "time"

// arrivals is when something last arrived (a span for an attempt, a request for the
// receiver), and a channel the next arrival closes, for whoever waits for quiet. Its
// owner's lock is held around every use.
type arrivals struct {
	last time.Time
	next chan struct{}
}

// arrive notes an arrival at now, and wakes a wait.
func (a *arrivals) arrive(now time.Time) {
	a.last = now
	if a.next != nil {
		close(a.next)
		a.next = nil
	}
}

// watch is the last arrival and a channel the next one closes.
func (a *arrivals) watch() (time.Time, <-chan struct{}) {
	if a.next == nil {
		a.next = make(chan struct{})
	}
	return a.last, a.next
}

// waitQuiet waits until nothing has arrived for the wait state gives, counted from the
// later of the call and the last arrival, or until most has passed; it says whether it was
// quiet. state reads, under its owner's lock, the last arrival, the channel the next one
// closes, and how long to wait, which may change with what arrived (a trace whose tree
// has closed waits only a grace).
func waitQuiet(most time.Duration, state func() (last time.Time, next <-chan struct{}, wait time.Duration)) bool {
	start := time.Now()
	for {
		ref, next, wait := state()
		if ref.Before(start) {
			ref = start
		}
		if time.Since(ref) >= wait {
			return true
		}
		if time.Since(start) >= most {
			return false
		}
		t := time.NewTimer(min(wait-time.Since(ref), most-time.Since(start)))
		select {
		case <-next: // something came: the wait starts again from it
		case <-t.C:
		}
		t.Stop()
	}
}
