package rooktest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// machine simulates scenarios on a machine of cores: each slot in flight asks for
// perSlot of a core, and gets its share of what the cores give.
type slotMachine struct {
	now     time.Time
	cpu     time.Duration
	cores   float64
	perSlot float64
}

// step runs what is in flight for dt, then ends every slot and starts as many as the
// limit allows again: the limits it went through, step by step.
func (m *slotMachine) run(l *slotLimiter, steps int) []int {
	var limits []int
	for range steps {
		n := l.Limit()
		for range n {
			l.Acquire()
		}
		dt := 50 * time.Millisecond
		m.now = m.now.Add(dt)
		m.cpu += time.Duration(min(float64(n)*m.perSlot, m.cores) * float64(dt))
		for range n {
			l.Release()
		}
		limits = append(limits, l.Limit())
	}
	return limits
}

func autoOn(m *slotMachine, ceiling int) *slotLimiter {
	return autoSlots(slotAuto{Ceiling: ceiling, Cores: int(m.cores), CPU: func() time.Duration { return m.cpu }, Now: func() time.Time { return m.now }})
}

func TestAutoFollowsTheCPUASlotTakes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cores   float64
		perSlot float64
		ceiling int
		want    int
	}{
		// A hook that keeps a core busy: about as many as there are cores fit.
		{"a slot takes a core, two cores", 2, 1, 64, 2},
		{"a slot takes a core, sixteen cores", 16, 1, 64, 14},
		// Half a core each: three keep 1.5 of 2 cores busy; four would fill the machine,
		// past slotTarget.
		{"a slot takes half a core", 2, 0.5, 64, 3},
		// An agent answering over the network: the ceiling, which the profile sets.
		{"a slot mostly waits", 2, 0.02, 16, 16},
		{"the ceiling holds under the cores", 8, 1, 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &slotMachine{now: time.Unix(0, 0), cores: tc.cores, perSlot: tc.perSlot}
			limits := m.run(autoOn(m, tc.ceiling), 100)
			settled := limits[len(limits)-20:]
			for _, n := range settled {
				if n != tc.want {
					t.Fatalf("want it to settle at %d; limits step by step: %v", tc.want, limits)
				}
			}
		})
	}
}

// A limit too low for what the slots take goes up at once to what the first window
// measured; one too high comes down by half a window at most.
func TestAutoRisesAtOnceAndFallsByHalves(t *testing.T) {
	m := &slotMachine{now: time.Unix(0, 0), cores: 2, perSlot: 0.01}
	l := autoOn(m, 64)
	limits := m.run(l, 60)
	assert.Equal(t, []int{2, 2, 2, 2, 64}, limits[:5], "the first window that ends measures slots that wait: %v", limits)
	m.perSlot = 1 // the agent's hooks became heavy
	limits = m.run(l, 60)
	assert.Equal(t, 2, limits[len(limits)-1], "%v", limits)
	assert.Equal(t, []int{64, 64, 64, 64, 32}, limits[:5], "halved once its first window is measured: %v", limits)
	for i := 1; i < len(limits); i++ {
		assert.GreaterOrEqual(t, limits[i], limits[i-1]/2, "%v", limits)
	}
}

// A fixed limiter holds the next scenario until one in flight ends.
func TestFixedWaitsForAFreeSlot(t *testing.T) {
	l := fixedSlots(2)
	l.Acquire()
	l.Acquire()
	third := make(chan struct{})
	go func() {
		l.Acquire()
		close(third)
	}()
	select {
	case <-third:
		t.Fatal("a third slot was given while two were held")
	default:
	}
	l.Release()
	<-third // the slot the first gave back
	assert.Equal(t, 2, l.Limit())
	assert.Equal(t, 1, fixedSlots(0).Limit(), "at least one")
}
