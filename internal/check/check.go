// Package check holds the checks that decide acceptance criteria from recorded evidence.
//
// Each check is a small type in a file of its own: it is registered by name with the keys
// its params may hold, parsed from a criterion's params (every problem reported at its
// file, line and column through Params), says what it expects, and judges the evidence.
// Adding a check is one new file here, its params in schemas/scenario.schema.json (a test
// holds the two to each other) and one row in the README's table.
package check

import (
	"fmt"
	"sort"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// Result is what a check decided about one criterion.
type Result struct {
	Status record.Status
	// Reason is set with Unable to Verify: record.AgentNeverRan, record.NotObservable or record.Undecidable.
	Reason string
	// Achieved says what the evidence shows; Evidence quotes it from the record.
	Achieved string
	Evidence string
	// Confidence is High for computed checks.
	Confidence string
}

// Check decides one kind of criterion.
type Check interface {
	// Expected says what passes, as the verdict's expected field shows it.
	Expected() string
	// Observes declares what the check reads of an attempt.
	Observes() Observations
	// Judge decides the criterion from the evidence alone. Decide calls it only once the
	// agent replied, unless it does not observe the reply.
	Judge(ev *observe.Observations) Result
}

// Observations are what a check reads of an attempt, as flags. Each check declares them,
// so that the harness plans from them (a scenario that grades usage needs hooks that report
// it; one with a model-judged criterion needs a judge) without knowing the check.
type Observations uint8

// What a check may read.
const (
	// ObservesReply: the agent's replies; a check that reads them is Unable to Verify
	// (agent_never_ran) when the agent never replied.
	ObservesReply Observations = 1 << iota
	ObservesCalls
	ObservesUsage
	ObservesLatency
	ObservesCollect
	// ObservesModel: a model judge decides the criterion, from the whole record.
	ObservesModel
)

// Has reports whether o includes every flag of f.
func (o Observations) Has(f Observations) bool { return o&f == f }

// Detailer gives the part of a criterion's subtest name that follows the check's name
// (contains_refund, called_issue_refund). A check without it is named by its statement.
type Detailer interface {
	Detail() string
}

// Kind is a check as scenario files name it.
type Kind struct {
	// Name is the check's name in a criterion's check key.
	Name string
	// Params are the keys its params may hold, besides EvidenceParam, which every check takes.
	Params []string
	// Turn says a criterion may scope the check to one turn (turn: 2, turn: last): it reads
	// the turns' replies, calls, usage or times. A check that reads the whole record (a judge
	// model's) may not; its statement says which turn it means.
	Turn bool
	// Parse reads the params into the check, reporting problems through p.
	Parse func(p Params) Check
}

var kinds = map[string]*Kind{}

// register adds a kind; each check's file registers its own.
func register(k *Kind) {
	if _, dup := kinds[k.Name]; dup {
		panic(fmt.Sprintf("check %q registered twice", k.Name))
	}
	kinds[k.Name] = k
}

// Lookup returns the kind a criterion's check key names.
func Lookup(name string) (*Kind, bool) {
	k, ok := kinds[name]
	return k, ok
}

// Names lists the registered checks, sorted.
func Names() []string {
	out := make([]string, 0, len(kinds))
	for n := range kinds {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Params is one criterion's params as its file holds them. Readers of a key that is not
// there return the zero value; a value of the wrong kind is reported at its position.
type Params interface {
	// Has reports whether key was given.
	Has(key string) bool
	// Require reports key as missing when it was not given, and returns whether it was.
	Require(key string) bool
	String(key string) string
	// Scalar reads a scalar of any type as its text (equals' value: 40 and "40" alike).
	Scalar(key string) string
	Bool(key string) bool
	// Int reads a whole number that is not negative; nil when absent or invalid.
	Int(key string) *int
	// Value reads any value, decoded (json_path's equals, called's arguments).
	Value(key string) any
	Strings(key string) []string
	// Errorf reports a problem with key's value, or with the params as a whole when key
	// is "".
	Errorf(key, format string, args ...any)
}

// Decide judges c on ev: a check that reads the reply is Unable to Verify
// (agent_never_ran) when there is none.
func Decide(c Check, ev *observe.Observations) Result {
	if c.Observes().Has(ObservesReply) && !ev.Turns().Observed {
		return unable(record.AgentNeverRan, "the agent never replied, so there is nothing to judge")
	}
	r := c.Judge(ev)
	if r.Confidence == "" {
		r.Confidence = "High"
	}
	return r
}

func passIf(ok bool) record.Status {
	if ok {
		return record.Pass
	}
	return record.Fail
}

func unable(reason, why string) Result {
	return Result{Status: record.UnableToVerify, Reason: reason, Achieved: why}
}

// oneOf reports key's value unless it is one of allowed.
func oneOf(p Params, key, value string, allowed ...string) {
	for _, a := range allowed {
		if value == a {
			return
		}
	}
	list := ""
	for i, a := range allowed {
		switch {
		case i == 0:
		case i == len(allowed)-1:
			list += " or "
		default:
			list += ", "
		}
		list += a
	}
	p.Errorf(key, "must be %s, not %q", list, value)
}
