package check

import (
	"fmt"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

func init() {
	register(&Kind{Name: "mcp_probe", Params: []string{"server", "tool", "arguments", "path", "equals", "matches", "exists"},
		Parse: func(p Params) Check {
			c := &MCPProbe{}
			if !p.Has("server") && !p.Has("tool") && !p.Has("path") {
				c.FreeForm = true // Rook's: the judge would choose the calls
				return c
			}
			if p.Require("server") {
				c.Server = p.String("server")
			}
			if p.Require("tool") {
				c.Tool = p.String("tool")
			}
			if p.Has("arguments") {
				args, ok := p.Value("arguments").(map[string]any)
				if !ok {
					p.Errorf("arguments", "must be a mapping of the tool's arguments")
				}
				c.Arguments = args
			}
			c.At = JSONPathCheck{In: "probe"}
			if p.Require("path") {
				c.At.Source = p.String("path")
				var err error
				if c.At.Path, err = ParseJSONPath(c.At.Source); err != nil {
					p.Errorf("path", "%v", err)
				}
			}
			c.At.parseExpectation(p, "mcp_probe")
			return c
		}})
}

// MCPProbe decides a criterion from an MCP server's answer: after collect the run calls
// Tool of Server (one the profile approves, read-only) with Arguments, and the value at the
// path of its answer must equal a value, match a pattern, or exist. Rook's free-form
// mcp_probe, with no params, lets a judge model choose the calls; it is Unable to Verify
// here, saying so.
type MCPProbe struct {
	FreeForm  bool
	Server    string
	Tool      string
	Arguments map[string]any
	At        JSONPathCheck
}

// FreeFormWhy is why Rook's free-form mcp_probe is not decided.
const FreeFormWhy = "Rook's free-form mcp_probe lets a judge model choose the MCP calls; this project calls only a probe its params name (server, tool, arguments, path and equals, matches or exists)"

func (c *MCPProbe) Detail() string {
	if c.FreeForm {
		return ""
	}
	return c.Server + "_" + c.Tool
}

// Observes what the server answers: collected evidence, read after collect.
func (c *MCPProbe) Observes() Observations {
	if c.FreeForm {
		return 0
	}
	return ObservesCollect
}

func (c *MCPProbe) Expected() string {
	if c.FreeForm {
		return ""
	}
	return c.At.expectation(fmt.Sprintf("mcp server %s's answer to %s(%s)", c.Server, c.Tool, jsonText(c.args())))
}

func (c *MCPProbe) args() map[string]any {
	if c.Arguments == nil {
		return map[string]any{}
	}
	return c.Arguments
}

// Is reports whether p is this criterion's probe.
func (c *MCPProbe) Is(p record.Probe) bool {
	return p.Server == c.Server && p.Tool == c.Tool && jsonEqual(toJSON(p.Arguments), toJSON(c.args()))
}

// toJSON is v as decoded JSON, so that numbers compare by value whatever decoded them.
func toJSON(v map[string]any) any {
	d, err := decodeJSON(jsonText(v))
	if err != nil {
		return v
	}
	return d
}

func (c *MCPProbe) Judge(ev *observe.Observations) Result {
	if c.FreeForm {
		r := unable(record.Undecidable, FreeFormWhy)
		r.Confidence = "Low"
		return r
	}
	probes := ev.Probes()
	for _, p := range probes.Value {
		if !c.Is(p) {
			continue
		}
		if p.Error != "" {
			return unable(record.NotObservable, p.Error)
		}
		if p.IsError {
			// A tool that answers with an error ("database unavailable") did not read the
			// state: its answer says nothing of what is there.
			return unable(record.NotObservable, fmt.Sprintf("mcp %s %s answered with an error, which is not an observation of the state: %s",
				c.Server, c.Tool, Clip(jsonText(p.Answer), 300)))
		}
		var r Result
		var found bool
		var v any
		r.Status, found, v = c.At.decideAt(p.Answer)
		what := "answered"
		r.Evidence = fmt.Sprintf("mcp %s %s %s: %s", c.Server, c.Tool, what, Clip(jsonText(p.Answer), 300))
		if found {
			r.Achieved = fmt.Sprintf("%s is %s", c.At.Source, Clip(jsonText(v), 200))
		} else {
			r.Achieved = fmt.Sprintf("nothing at %s", c.At.Source)
		}
		return r
	}
	return unable(record.NotObservable, fmt.Sprintf("mcp server %s was not probed", c.Server))
}
