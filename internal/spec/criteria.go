package spec

import (
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Criterion is one acceptance criterion: a statement and the check that decides it.
type Criterion struct {
	// ID is the criterion's id; by default C1, C2... by position.
	ID        string
	Statement string
	// Check names the check; an empty check in the file means llm_judge.
	Check string
	// Params are the check's parameters as written (kept for records).
	Params map[string]any

	// The parameters, read and validated for the check.
	Text          string // contains, not_contains
	In            string // output (default), transcript, collect
	CaseSensitive bool   // contains, not_contains, equals
	Pattern       string // regex, not_regex, json_path matches
	Value         string // equals
	Path          string // json_path
	JSONEquals    any    // json_path equals
	HasJSONEquals bool   // json_path equals was given
	Exists        *bool  // json_path exists
	Name          string // called, not_called
	Arguments     map[string]any
	Times         *int     // called
	Min, Max      *int     // called: bounds; turns: Max
	Names         []string // call_sequence
	Mode          string   // call_sequence
	InputMax      *int     // usage
	OutputMax     *int
	TotalMax      *int
	MaxMs         *int   // latency
	Per           string // latency: turn (default) or scenario

	// Line and Column locate the criterion in its file.
	Line, Column int
}

// Checks the judge knows, with their parameter keys.
var checkParams = map[string][]string{
	"contains":      {"text", "in", "case_sensitive"},
	"not_contains":  {"text", "in", "case_sensitive"},
	"regex":         {"pattern", "in"},
	"not_regex":     {"pattern", "in"},
	"equals":        {"value", "in", "case_sensitive"},
	"json_path":     {"path", "equals", "matches", "exists", "in"},
	"called":        {"name", "arguments", "times", "min", "max"},
	"not_called":    {"name", "arguments"},
	"call_sequence": {"names", "mode"},
	"usage":         {"input_max", "output_max", "total_max"},
	"latency":       {"max_ms", "per"},
	"turns":         {"max"},
	"llm_judge":     {},
}

// KnownCheck reports whether the judge implements check.
func KnownCheck(check string) bool { _, ok := checkParams[check]; return ok }

var criterionKeys = []string{"id", "statement", "check", "params"}

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
		var checkNode *yaml.Node
		for _, k := range fields(e, item, where, criterionKeys, true) {
			switch k.key {
			case "id":
				c.ID = str(e, k)
				if c.ID != "" && !slugRE.MatchString(c.ID) {
					e.at(k.v, "%s.id %q may hold only letters, digits, '-' and '_'", where, c.ID)
				}
			case "statement":
				c.Statement = str(e, k)
			case "check":
				c.Check, checkNode = str(e, k), k.v
			case "params":
				if !isNull(k.v) {
					params = k.v
				}
			}
		}
		if item.Kind != yaml.MappingNode {
			continue
		}
		if c.Check == "" {
			c.Check = "llm_judge"
		}
		if c.Statement == "" && c.Check == "llm_judge" {
			e.at(item, "%s needs a statement for the judge to decide", where)
		}
		if known, ok := checkParams[c.Check]; ok {
			c.parseParams(e, params, where, known)
		} else if checkNode != nil && nearest(c.Check, keysOf(checkParams)) != "" {
			e.at(checkNode, "%s: unknown check %q; did you mean %q?", where, c.Check, nearest(c.Check, keysOf(checkParams)))
		} else if params != nil {
			// A check this judge does not implement (Rook's mcp_probe, say) loads and is
			// reported as Unable to Verify; its params are kept as written.
			c.Params, _ = value(e, field{key: where + ".params", v: params}).(map[string]any)
		}
		out = append(out, c)
	}
	return out
}

func keysOf(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return sorted(out)
}

func (c *Criterion) parseParams(e *errs, params *yaml.Node, where string, known []string) {
	pw := where + ".params"
	var fs []field
	if params != nil {
		fs = fields(e, params, pw, known, true)
		c.Params, _ = value(e, field{key: pw, v: params}).(map[string]any)
	}
	got := map[string]field{}
	for _, f := range fs {
		got[f.key] = f
	}
	need := func(key string) (field, bool) {
		f, ok := got[key]
		if !ok {
			n := params
			if n == nil {
				n = &yaml.Node{Line: c.Line, Column: c.Column}
			}
			e.at(n, "%s: check %s needs params.%s", where, c.Check, key)
		}
		return f, ok
	}
	optInt := func(key string) *int {
		if f, ok := got[key]; ok {
			if n, ok := integer(e, f); ok {
				return &n
			}
		}
		return nil
	}
	c.In = "output"
	if f, ok := got["in"]; ok {
		c.In = str(e, f)
		allowed := []string{"output", "transcript"}
		if c.Check == "json_path" {
			allowed = []string{"output", "collect"}
		}
		if !contains(allowed, c.In) {
			e.at(f.v, "%s.in must be one of %s, not %q", pw, strings.Join(allowed, ", "), c.In)
		}
	}
	if f, ok := got["case_sensitive"]; ok {
		c.CaseSensitive = boolean(e, f)
	}
	switch c.Check {
	case "contains", "not_contains":
		if f, ok := need("text"); ok {
			c.Text = str(e, f)
			if c.Text == "" {
				e.at(f.v, "%s.text must not be empty", pw)
			}
		}
	case "regex", "not_regex":
		if f, ok := need("pattern"); ok {
			c.Pattern = str(e, f)
			if _, err := regexp.Compile(c.Pattern); err != nil {
				e.at(f.v, "%s.pattern is not a valid RE2 expression: %v", pw, err)
			}
		}
	case "equals":
		if f, ok := need("value"); ok {
			c.Value = scalarText(f.v)
		}
	case "json_path":
		if f, ok := need("path"); ok {
			c.Path = str(e, f)
			if _, err := ParseJSONPath(c.Path); err != nil {
				e.at(f.v, "%s.path: %v", pw, err)
			}
		}
		n := 0
		if f, ok := got["equals"]; ok {
			c.JSONEquals, c.HasJSONEquals = value(e, f), true
			n++
		}
		if f, ok := got["matches"]; ok {
			c.Pattern = str(e, f)
			if _, err := regexp.Compile(c.Pattern); err != nil {
				e.at(f.v, "%s.matches is not a valid RE2 expression: %v", pw, err)
			}
			n++
		}
		if f, ok := got["exists"]; ok {
			b := boolean(e, f)
			c.Exists = &b
			n++
		}
		if n != 1 {
			e.at(params, "%s: check json_path needs exactly one of params.equals, params.matches, params.exists", where)
		}
	case "called", "not_called":
		if f, ok := need("name"); ok {
			c.Name = str(e, f)
		}
		if f, ok := got["arguments"]; ok && !isNull(f.v) {
			m, isMap := value(e, f).(map[string]any)
			if !isMap {
				e.at(f.v, "%s.arguments must be a mapping", pw)
			}
			c.Arguments = m
		}
		c.Times, c.Min, c.Max = optInt("times"), optInt("min"), optInt("max")
		if c.Times != nil && (c.Min != nil || c.Max != nil) {
			e.at(params, "%s: params.times cannot be combined with min or max", where)
		}
	case "call_sequence":
		if f, ok := need("names"); ok {
			c.Names = strList(e, f)
		}
		c.Mode = "strict"
		if f, ok := got["mode"]; ok {
			c.Mode = str(e, f)
			if !contains([]string{"strict", "unordered", "subset", "superset"}, c.Mode) {
				e.at(f.v, "%s.mode must be strict, unordered, subset or superset, not %q", pw, c.Mode)
			}
		}
	case "usage":
		c.InputMax, c.OutputMax, c.TotalMax = optInt("input_max"), optInt("output_max"), optInt("total_max")
		if c.InputMax == nil && c.OutputMax == nil && c.TotalMax == nil {
			e.at(params, "%s: check usage needs params.input_max, output_max or total_max", where)
		}
	case "latency":
		if _, ok := need("max_ms"); ok {
			c.MaxMs = optInt("max_ms")
		}
		c.Per = "turn"
		if f, ok := got["per"]; ok {
			c.Per = str(e, f)
			if c.Per != "turn" && c.Per != "scenario" {
				e.at(f.v, "%s.per must be turn or scenario, not %q", pw, c.Per)
			}
		}
	case "turns":
		if _, ok := need("max"); ok {
			c.Max = optInt("max")
		}
	}
}

func scalarText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		return n.Value
	}
	return ""
}

var callKeys = []string{"tool", "name", "expect", "times", "min", "max", "arguments", "server"}

// parseCalls reads Rook's calls shorthand ({tool, expect: called|not_called|called_with})
// into criteria judged like the others.
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
		where := fmt.Sprintf("calls[%d]", i)
		// Rook names the shorthand's criteria CALL-01, CALL-02...
		c := Criterion{ID: fmt.Sprintf("CALL-%02d", i+1), Line: item.Line, Column: item.Column, Check: "called"}
		expect := "called"
		got := map[string]field{}
		for _, k := range fields(e, item, where, callKeys, true) {
			got[k.key] = k
			switch k.key {
			case "tool", "name":
				c.Name = str(e, k)
			case "expect":
				expect = str(e, k)
			case "arguments":
				if !isNull(k.v) {
					m, isMap := value(e, k).(map[string]any)
					if !isMap {
						e.at(k.v, "%s.arguments must be a mapping", where)
					}
					c.Arguments = m
				}
			case "times", "min", "max":
				if n, ok := integer(e, k); ok {
					switch k.key {
					case "times":
						c.Times = &n
					case "min":
						c.Min = &n
					case "max":
						c.Max = &n
					}
				}
			}
		}
		if item.Kind != yaml.MappingNode {
			continue
		}
		if c.Name == "" {
			e.at(item, "%s needs a tool name", where)
		}
		switch expect {
		case "called", "called_with":
		case "not_called":
			c.Check = "not_called"
		default:
			e.at(got["expect"].v, "%s.expect must be called, not_called or called_with, not %q", where, expect)
		}
		c.Statement = callStatement(c)
		c.Params = map[string]any{"name": c.Name}
		if c.Arguments != nil {
			c.Params["arguments"] = c.Arguments
		}
		for k, p := range map[string]*int{"times": c.Times, "min": c.Min, "max": c.Max} {
			if p != nil {
				c.Params[k] = *p
			}
		}
		out = append(out, c)
	}
	return out
}

func callStatement(c Criterion) string {
	if c.Check == "not_called" {
		return fmt.Sprintf("The agent does not call %s.", c.Name)
	}
	s := "The agent calls " + c.Name
	if len(c.Arguments) > 0 {
		s += " with the given arguments"
	}
	if c.Times != nil {
		s += fmt.Sprintf(" exactly %d time(s)", *c.Times)
	}
	return s + "."
}

// Subtest is the criterion's go test name, such as C2_not_called_issue_refund.
func (c *Criterion) Subtest() string {
	var detail string
	switch c.Check {
	case "contains", "not_contains":
		detail = c.Text
	case "called", "not_called":
		detail = c.Name
	case "regex", "not_regex", "json_path", "equals", "call_sequence", "usage", "latency", "turns":
		detail = ""
	default:
		detail = c.Statement
	}
	name := c.ID + "_" + Slug(c.Check, 20)
	if d := Slug(detail, 40); d != "" {
		name += "_" + d
	}
	return name
}
