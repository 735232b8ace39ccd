package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
)

// Criterion is one acceptance criterion: a statement and the check that decides it.
type Criterion struct {
	// ID is the criterion's id; by default C1, C2... by position.
	ID        string
	Statement string
	// Kind names the check as the file does; a criterion without one is llm_judge.
	Kind string
	// Check decides the criterion.
	Check check.Check
	// Params are the check's parameters as written (kept for records).
	Params map[string]any
	// Requires is the weakest tier of evidence that may decide the criterion (its params'
	// evidence: said, reported or collected; collected for call criteria when Rook's
	// verification_requires names an mcp server); "" for any.
	Requires string
	// Turn is the turn the criterion is about (turn: 2): its checks read only that turn's
	// observations. 0 is every turn (turns: all, the default); LastTurn the scenario's last.
	Turn int

	// Line and Column locate the criterion in its file.
	Line, Column int
}

// Expected says what passes: the check's own words, or the statement a judge model decides.
func (c *Criterion) Expected() string {
	if e := c.Check.Expected(); e != "" {
		return e
	}
	return c.Statement
}

var criterionKeys = []string{"id", "statement", "check", "params", "turn", "turns"}

// LastTurn is Criterion.Turn for turn: last.
const LastTurn = -1

// turnScoped are the checks a criterion may scope to one turn: those that read the
// turns' replies, calls, usage and times. A judge model reads the whole record; its
// statement says which turn it means.
var turnScoped = map[string]bool{"contains": true, "not_contains": true, "regex": true, "not_regex": true, "equals": true,
	"not_equals": true, "json_path": true, "called": true, "not_called": true, "call_sequence": true, "usage": true, "latency": true}

// turnOf reads a criterion's turn (a turn number from 1, or last) and turns (all).
func turnOf(e *errs, c *Criterion, where string, turn, turns *yaml.Node) {
	switch {
	case turn != nil && turns != nil:
		e.at(turns, "%s: give turn (one turn) or turns: all, not both", where)
	case turns != nil && turns.Value != "all":
		e.at(turns, "%s.turns must be all (the default); for one turn, give turn: 2 or turn: last", where)
	case turn != nil && turn.Value == "last":
		c.Turn = LastTurn
	case turn != nil:
		n, err := strconv.Atoi(turn.Value)
		if err != nil || n < 1 {
			e.at(turn, "%s.turn must be a turn number from 1, or last; got %q", where, turn.Value)
			return
		}
		c.Turn = n
	}
	if c.Turn != 0 && !turnScoped[c.Kind] {
		e.at(turn, "%s: turn is for the checks that read turns (text, calls, usage, latency, json_path); %s reads the whole record, so say the turn in its statement", where, c.Kind)
	}
}

func parseCriteria(e *errs, f field) []Criterion {
	if isNull(f.v) {
		return nil
	}
	if f.v.Kind != yaml.SequenceNode {
		e.at(f.v, "acceptance_criteria must be a list, not %s", kindName(f.v))
		return nil
	}
	var out []Criterion
	for i, item := range f.v.Content {
		c := Criterion{Line: item.Line, Column: item.Column}
		where := fmt.Sprintf("acceptance_criteria[%d]", i)
		var params *yaml.Node
		var checkNode, turn, turns *yaml.Node
		for _, k := range fields(e, item, where, criterionKeys, true) {
			switch k.key {
			case "id":
				c.ID = str(e, k)
				if c.ID != "" && !record.ValidID(c.ID) {
					e.at(k.v, "%s.id %q may hold only letters, digits, '-' and '_'", where, c.ID)
				}
			case "statement":
				c.Statement = str(e, k)
			case "check":
				c.Kind, checkNode = str(e, k), k.v
			case "params":
				if !isNull(k.v) {
					params = k.v
				}
			case "turn":
				turn = k.v
			case "turns":
				turns = k.v
			}
		}
		if item.Kind != yaml.MappingNode {
			continue
		}
		if c.Kind == "" {
			c.Kind = "llm_judge"
		}
		if c.Statement == "" && c.Kind == "llm_judge" {
			e.at(item, "%s needs a statement for the judge to decide", where)
		}
		turnOf(e, &c, where, turn, turns)
		if params != nil {
			c.Params, _ = value(e, field{key: where + ".params", v: params}).(map[string]any)
		}
		kind, known := check.Lookup(c.Kind)
		switch {
		case known:
			pr := newParamReader(e, item, params, where, kind)
			c.Check = kind.Parse(pr)
			c.Requires = pr.String(evidenceParam)
			if c.Requires != "" && check.TierRank(c.Requires) == 0 {
				e.at(pr.got[evidenceParam].v, "%s.params.evidence must be %s, got %q", where, strings.Join(check.Tiers, ", "), c.Requires)
				c.Requires = ""
			}
		case checkNode != nil && nearest(c.Kind, check.Names()) != "":
			e.at(checkNode, "%s: unknown check %q; did you mean %q?", where, c.Kind, nearest(c.Kind, check.Names()))
		default:
			// A check this judge does not implement (Rook's mcp_probe, say) loads and is
			// reported as Unable to Verify; its params are kept as written.
			c.Check = &check.Unsupported{Name: c.Kind}
		}
		out = append(out, c)
	}
	return out
}

// paramReader is check.Params over a criterion's params node: every problem is reported
// at the position of the key it is about.
type paramReader struct {
	e         *errs
	item      *yaml.Node
	params    *yaml.Node
	where, pw string
	kind      string
	got       map[string]field
}

func newParamReader(e *errs, item, params *yaml.Node, where string, kind *check.Kind) *paramReader {
	return &paramReader{e: e, item: item, params: params, where: where, pw: where + ".params", kind: kind.Name,
		got: paramFields(e, params, where+".params", kind)}
}

// paramFields reads params' keys, refusing those kind does not take.
// evidenceParam is the param every check takes: the weakest tier of evidence that may
// decide it.
const evidenceParam = "evidence"

func paramFields(e *errs, params *yaml.Node, where string, kind *check.Kind) map[string]field {
	got := map[string]field{}
	if params != nil {
		for _, f := range fields(e, params, where, append(slices.Clone(kind.Params), evidenceParam), true) {
			got[f.key] = f
		}
	}
	return got
}

func (r *paramReader) Has(key string) bool { _, ok := r.got[key]; return ok }

func (r *paramReader) Require(key string) bool {
	if r.Has(key) {
		return true
	}
	n := r.params
	if n == nil {
		n = r.item
	}
	r.e.at(n, "%s: check %s needs params.%s", r.where, r.kind, key)
	return false
}

func (r *paramReader) String(key string) string {
	if f, ok := r.got[key]; ok {
		return str(r.e, f)
	}
	return ""
}

func (r *paramReader) Scalar(key string) string {
	if f, ok := r.got[key]; ok && f.v.Kind == yaml.ScalarNode && !isNull(f.v) {
		return f.v.Value
	}
	return ""
}

func (r *paramReader) Bool(key string) bool {
	if f, ok := r.got[key]; ok {
		return boolean(r.e, f)
	}
	return false
}

func (r *paramReader) Int(key string) *int {
	if f, ok := r.got[key]; ok {
		if n, ok := integer(r.e, f); ok {
			return &n
		}
	}
	return nil
}

func (r *paramReader) Value(key string) any {
	if f, ok := r.got[key]; ok && !isNull(f.v) {
		return value(r.e, f)
	}
	return nil
}

func (r *paramReader) Strings(key string) []string {
	if f, ok := r.got[key]; ok {
		return strList(r.e, f)
	}
	return nil
}

func (r *paramReader) Errorf(key, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if f, ok := r.got[key]; ok {
		r.e.at(f.v, "%s.%s %s", r.pw, key, msg)
		return
	}
	n := r.params
	if n == nil {
		n = r.item
	}
	r.e.at(n, "%s: %s", r.where, msg)
}

var callKeys = []string{"tool", "name", "expect", "times", "min", "max", "arguments", "server"}

// parseCalls reads Rook's calls shorthand ({tool, expect: called|not_called|called_with})
// into criteria judged like the others, named CALL-01, CALL-02... as Rook names them.
func parseCalls(e *errs, f field) []Criterion {
	if isNull(f.v) {
		return nil
	}
	if f.v.Kind != yaml.SequenceNode {
		e.at(f.v, "calls must be a list, not %s", kindName(f.v))
		return nil
	}
	var out []Criterion
	for i, item := range f.v.Content {
		if c, ok := parseCall(e, item, fmt.Sprintf("calls[%d]", i)); ok {
			c.ID = fmt.Sprintf("CALL-%02d", i+1)
			out = append(out, c)
		}
	}
	return out
}

// parseCall reads one entry of Rook's calls shorthand ({tool, expect, arguments, times,
// ...}) through the same parser as a called or not_called criterion's params, so that the
// shorthand accepts exactly what those checks accept.
func parseCall(e *errs, item *yaml.Node, where string) (Criterion, bool) {
	c := Criterion{Line: item.Line, Column: item.Column, Kind: "called"}
	if item.Kind != yaml.MappingNode {
		e.at(item, "%s must be a mapping, not %s", where, kindName(item))
		return c, false
	}
	// The params are the entry's keys but tool (called name) and expect.
	params := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: item.Line, Column: item.Column}
	expect := "called"
	for _, k := range fields(e, item, where, callKeys, true) {
		switch k.key {
		case "expect":
			expect = str(e, k)
			switch expect {
			case "called", "called_with":
			case "not_called":
				c.Kind = "not_called"
			default:
				e.at(k.v, "%s.expect must be called, not_called or called_with, not %q", where, expect)
			}
			continue
		case "tool":
			name := *k.kNode
			name.Value = "name"
			params.Content = append(params.Content, &name, k.v)
			continue
		case "server":
			continue // Rook's MCP server name: kept in the snapshot
		}
		params.Content = append(params.Content, k.kNode, k.v)
	}
	kind, _ := check.Lookup(c.Kind)
	c.Check = kind.Parse(&paramReader{e: e, item: item, params: params, where: where, pw: where, kind: kind.Name,
		got: paramFields(e, params, where, kind)})
	c.Params, _ = value(e, field{key: where, v: params}).(map[string]any)
	c.Statement = check.Statement(c.Check)
	return c, true
}

// Subtest is the criterion's go test name, such as C2_not_called_issue_refund.
func (c *Criterion) Subtest() string {
	detail := c.Statement
	if d, ok := c.Check.(check.Detailer); ok {
		detail = d.Detail()
	}
	name := c.ID + "_" + Slug(c.Kind, 20)
	if d := Slug(detail, 40); d != "" {
		name += "_" + d
	}
	return name
}
