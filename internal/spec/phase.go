package spec

import (
	"fmt"
	"time"
)

// Phase is one step of the fixed run lifecycle.
type Phase string

// The lifecycle phases, in order. Judge is owned by the runtime and is never a hook.
const (
	Prepare Phase = "prepare"
	Open    Phase = "open"
	Execute Phase = "execute"
	Close   Phase = "close"
	Collect Phase = "collect"
	Judge   Phase = "judge"
)

// Phases lists every phase in lifecycle order.
var Phases = []Phase{Prepare, Open, Execute, Close, Collect, Judge}

// HookPhases lists the phases a profile may assign a hook to, in lifecycle order.
var HookPhases = []Phase{Prepare, Open, Execute, Close, Collect}

// ParsePhase returns the phase named s.
func ParsePhase(s string) (Phase, error) {
	for _, p := range Phases {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown phase %q (phases are prepare, open, execute, close, collect, judge)", s)
}

// Index is the phase's position in the lifecycle (prepare is 0).
func (p Phase) Index() int {
	for i, q := range Phases {
		if q == p {
			return i
		}
	}
	return -1
}

// DefaultTimeout is the seed's default hook timeout for the phase.
func (p Phase) DefaultTimeout() time.Duration {
	switch p {
	case Prepare:
		return 60 * time.Second
	case Open:
		return 30 * time.Second
	case Execute:
		return 300 * time.Second
	case Close:
		return 30 * time.Second
	case Collect:
		return 120 * time.Second
	}
	return 0
}
