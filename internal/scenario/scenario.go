// Package scenario makes a scenario file live. internal/spec decodes the file into plain
// values (a criterion's check is a name and params, a signal is its text); Compile builds
// each criterion's check (check.Lookup, then the kind's Parse over the params as written)
// and reads each red-team signal (the redteam package), reporting every problem at its
// file, line and column, as the decoding does.
//
// A new check is then one file of the check package and a row of the schema: neither spec
// nor this package names any check.
package scenario

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/redteam"
	"github.com/rookgo/rookgo/internal/spec"
)

// Scenario is a scenario with its checks built and its signals read.
type Scenario struct {
	spec.Scenario
	// Criteria are the file's criteria, in the same order, each with its check.
	Criteria []Criterion
	// Redteam is the redteam block with its signals read; nil when the scenario has none.
	Redteam *Redteam
}

// Criterion is an acceptance criterion and the check that decides it.
type Criterion struct {
	spec.Criterion
	// Check decides the criterion.
	Check check.Check
	// Requires is the weakest tier of evidence that may decide the criterion (its params'
	// evidence: said, reported or collected; collected for call criteria when Rook's
	// verification_requires names an mcp server); "" for any.
	Requires string
}

// Redteam is a scenario's redteam block with its signals read.
type Redteam struct {
	spec.Redteam
	Success []redteam.Signal
	Failure []redteam.Signal
}

// Load reads, decodes and compiles the scenario at file.
func Load(file string) (*Scenario, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	return Parse(file, data)
}

// Parse decodes and compiles a scenario already read. Problems of the file's shape are
// reported first, and those of its checks' params and its signals once the shape is right,
// as a compiler reports syntax before types.
func Parse(file string, data []byte) (*Scenario, error) {
	s, err := spec.ParseScenario(file, data)
	if err != nil {
		return nil, err
	}
	return Compile(s)
}

// Compile builds the checks of s's criteria and reads its signals. s is not changed.
func Compile(s *spec.Scenario) (*Scenario, error) {
	sc := &Scenario{Scenario: *s, Criteria: make([]Criterion, 0, len(s.Criteria))}
	sc.Warnings = slices.Clone(s.Warnings)
	var problems []error
	for _, c := range s.Criteria {
		cr, err := compileCriterion(c, s.RequiresMCP)
		problems = append(problems, err)
		sc.Criteria = append(sc.Criteria, cr)
	}
	if s.Redteam != nil {
		rt, err := readSignals(s.File, s.Redteam)
		problems = append(problems, err)
		sc.Redteam = rt
		sc.warnUnnamed()
	}
	if err := errors.Join(problems...); err != nil {
		return nil, err
	}
	return sc, nil
}

// compileCriterion builds c's check from its kind and params.
func compileCriterion(c spec.Criterion, requiresMCP bool) (Criterion, error) {
	cr := Criterion{Criterion: c}
	kind, known := check.Lookup(c.Kind)
	var problems []error
	if c.Turn != 0 && (!known || !kind.Turn) {
		problems = append(problems, c.Err(c.TurnAt, "turn is for the checks that read turns (text, calls, usage, latency, json_path); %s reads the whole record, so say the turn in its statement", c.Kind))
	}
	switch {
	case known:
		p := c.ReadParams(kind.Name, append(slices.Clone(kind.Params), check.EvidenceParam))
		cr.Check = kind.Parse(p)
		cr.Requires = p.String(check.EvidenceParam)
		if cr.Requires != "" && check.TierRank(cr.Requires) == 0 {
			p.Errorf(check.EvidenceParam, "must be %s, got %q", strings.Join(check.Tiers, ", "), cr.Requires)
			cr.Requires = ""
		}
		problems = append(problems, p.Err())
	case c.KindAt != (spec.Pos{}) && spec.Nearest(c.Kind, check.Names()) != "":
		problems = append(problems, c.Err(c.KindAt, "unknown check %q; did you mean %q?", c.Kind, spec.Nearest(c.Kind, check.Names())))
	default:
		// A check this judge does not implement (Rook's mcp_probe, say) loads and is
		// reported as Unable to Verify; its params are kept as written.
		cr.Check = &check.Unsupported{Name: c.Kind}
	}
	if cr.Check == nil {
		cr.Check = &check.Unsupported{Name: c.Kind}
	}
	if c.FromCalls {
		cr.Statement = check.Statement(cr.Check)
	}
	if requiresMCP && cr.Requires == "" && cr.Check.Observes().Has(check.ObservesCalls) {
		cr.Requires = check.TierCollected
	}
	return cr, errors.Join(problems...)
}

// Expected says what passes: the check's own words, or the statement a judge model decides.
func (c *Criterion) Expected() string {
	if e := c.Check.Expected(); e != "" {
		return e
	}
	return c.Statement
}

// Subtest is the criterion's go test name, such as C2_not_called_issue_refund.
func (c *Criterion) Subtest() string {
	detail := c.Statement
	if d, ok := c.Check.(check.Detailer); ok {
		detail = d.Detail()
	}
	name := c.ID + "_" + spec.Slug(c.Kind, 20)
	if d := spec.Slug(detail, 40); d != "" {
		name += "_" + d
	}
	return name
}

// Observes is what the scenario's criteria read of an attempt, together; usage too when
// Rook's verification_requires asks for total_tokens, and a model when a free-text signal
// is for a judge model to decide.
func (s *Scenario) Observes() check.Observations {
	var o check.Observations
	for _, c := range s.Criteria {
		o |= c.Check.Observes()
	}
	if s.RequiresUsage {
		o |= check.ObservesUsage
	}
	if succ, fail := s.Redteam.JudgeSignals(); len(succ)+len(fail) > 0 {
		o |= check.ObservesModel
	}
	return o
}
