package spec

import (
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/record"
)

// Criterion is one acceptance criterion as its file writes it: a statement, the name of
// the check that decides it and that check's params. The check itself is built from Kind
// and the params by the package that compiles a scenario (check.Lookup, then Kind.Parse
// over ReadParams), so that a new check touches the check package and its schema alone.
type Criterion struct {
	// ID is the criterion's id; by default C1, C2... by position.
	ID        string
	Statement string
	// Kind names the check as the file does; a criterion without one is llm_judge.
	Kind string
	// Params are the check's parameters as written (kept for records).
	Params map[string]any
	// Turn is the turn the criterion is about (turn: 2): its checks read only that turn's
	// observations. 0 is every turn (turns: all, the default); LastTurn the scenario's last.
	Turn int
	// FromCalls marks a criterion of Rook's calls shorthand, which has no statement of its
	// own: the check's words stand for one.
	FromCalls bool

	// Line and Column locate the criterion in its file; KindAt its check key, and TurnAt
	// its turn key (zero when the file has none).
	Line, Column int
	KindAt       Pos
	TurnAt       Pos

	src *criterionSource
}

// criterionSource is where a criterion's params are written, for ReadParams.
type criterionSource struct {
	file          string
	item, params  *yaml.Node
	where, pwhere string
}

// Err is a problem with the criterion, at pos (its own position when pos is zero), in the
// words "acceptance_criteria[0]: msg".
func (c *Criterion) Err(pos Pos, format string, args ...any) error {
	if pos == (Pos{}) {
		pos = Pos{c.Line, c.Column}
	}
	e := &PosError{Line: pos.Line, Column: pos.Column, Msg: fmt.Sprintf(format, args...)}
	if c.src != nil {
		e.File, e.Msg = c.src.file, c.src.where+": "+e.Msg
	}
	return e
}

var criterionKeys = []string{"id", "statement", "check", "params", "turn", "turns"}

// LastTurn is Criterion.Turn for turn: last.
const LastTurn = -1

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
	if turn != nil {
		c.TurnAt = Pos{turn.Line, turn.Column}
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
		if checkNode != nil {
			c.KindAt = Pos{checkNode.Line, checkNode.Column}
		}
		c.src = &criterionSource{file: e.file, item: item, params: params, where: where, pwhere: where + ".params"}
		out = append(out, c)
	}
	return out
}

// Params reads a criterion's params for the check its kind names (it is check.Params):
// every problem, a key the check does not take included, is reported at the position of
// the key it is about, and Err returns them all.
type Params struct {
	e    *errs
	src  *criterionSource
	kind string
	got  map[string]field
}

// ReadParams reads the criterion's params as those of check kind, whose keys are allowed.
func (c *Criterion) ReadParams(kind string, allowed []string) *Params {
	src := c.src
	if src == nil { // a criterion built in code rather than read from a file
		src = &criterionSource{item: &yaml.Node{Kind: yaml.MappingNode}, where: c.ID, pwhere: c.ID + ".params"}
	}
	p := &Params{e: &errs{file: src.file}, src: src, kind: kind, got: map[string]field{}}
	if src.params != nil {
		for _, f := range fields(p.e, src.params, src.pwhere, allowed, true) {
			p.got[f.key] = f
		}
	}
	return p
}

// Err is every problem the reads found; nil when there were none.
func (r *Params) Err() error { return r.e.err() }

// whole is the node a problem with the params as a whole is reported at.
func (r *Params) whole() *yaml.Node {
	if r.src.params != nil {
		return r.src.params
	}
	return r.src.item
}

func (r *Params) Has(key string) bool { _, ok := r.got[key]; return ok }

func (r *Params) Require(key string) bool {
	if r.Has(key) {
		return true
	}
	r.e.at(r.whole(), "%s: check %s needs params.%s", r.src.where, r.kind, key)
	return false
}

func (r *Params) String(key string) string {
	if f, ok := r.got[key]; ok {
		return str(r.e, f)
	}
	return ""
}

func (r *Params) Scalar(key string) string {
	if f, ok := r.got[key]; ok && f.v.Kind == yaml.ScalarNode && !isNull(f.v) {
		return f.v.Value
	}
	return ""
}

func (r *Params) Bool(key string) bool {
	if f, ok := r.got[key]; ok {
		return boolean(r.e, f)
	}
	return false
}

func (r *Params) Int(key string) *int {
	if f, ok := r.got[key]; ok {
		if n, ok := integer(r.e, f); ok {
			return &n
		}
	}
	return nil
}

func (r *Params) Value(key string) any {
	if f, ok := r.got[key]; ok && !isNull(f.v) {
		return value(r.e, f)
	}
	return nil
}

func (r *Params) Strings(key string) []string {
	if f, ok := r.got[key]; ok {
		return strList(r.e, f)
	}
	return nil
}

func (r *Params) Errorf(key, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if f, ok := r.got[key]; ok {
		r.e.at(f.v, "%s.%s %s", r.src.pwhere, key, msg)
		return
	}
	r.e.at(r.whole(), "%s: %s", r.src.where, msg)
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
	c.Params, _ = value(e, field{key: where, v: params}).(map[string]any)
	c.FromCalls = true
	c.src = &criterionSource{file: e.file, item: item, params: params, where: where, pwhere: where}
	return c, true
}
