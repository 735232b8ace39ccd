package rooktest

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// parseBudget reads -rook.budget (given as as): an amount in the currency of the
// profile's price table, written 5, 5.00 or $5.
func parseBudget(s, as string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseFloat(strings.TrimPrefix(s, "$"), 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s=%s: want an amount above 0, such as 5 or $2.50", as, s)
	}
	return n, nil
}

// budget is what this process may spend, and what the scenarios it ran have spent, by the
// profile's price table. Usage a hook did not report is not counted: the spend is a floor.
type budget struct {
	limit   float64
	pricing *record.Pricing
	mu      sync.Mutex
	spent   float64
	// stopped counts the scenarios not started because the budget was spent.
	stopped int
}

// spend counts a finished scenario's cost.
func (b *budget) spend(o *lifecycle.Outcome) {
	if b == nil || o == nil {
		return
	}
	var vs []*record.Verdict
	for _, a := range o.Attempts {
		if a.Verdict != nil {
			vs = append(vs, a.Verdict)
		}
	}
	c := report.VerdictsCost(b.pricing, vs)
	b.mu.Lock()
	b.spent += c.Total
	b.mu.Unlock()
}

// over says, when the budget is spent, why no further scenario starts, and counts the one
// that does not; "" while there is budget left.
func (b *budget) over(runID string) string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent < b.limit {
		return ""
	}
	b.stopped++
	return fmt.Sprintf("the run's budget of %s is spent (%s by the scenarios that ran): continue with -rook.run=%s and a budget for the rest",
		report.Money(b.pricing, b.limit), report.Money(b.pricing, b.spent), runID)
}

// report says what was not started for want of budget, failing the run: it is not whole.
func (b *budget) report(t tb, runID, cont string) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped > 0 {
		errorf(t, "rook run %s: %d scenario(s) were not started because the run's budget of %s was spent (%s); everything recorded is kept: continue with %s",
			runID, b.stopped, report.Money(b.pricing, b.limit), report.Money(b.pricing, b.spent), cont)
		return
	}
	logf(t, "rook run %s spent %s of its budget of %s (usage the hooks did not report is not counted)",
		runID, report.Money(b.pricing, b.spent), report.Money(b.pricing, b.limit))
}
