package decide

import (
	"slices"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/scenario"
)

// Probes are the MCP probes a scenario's mcp_probe criteria ask for, as requests (a
// probe with no answer yet), and not among have with an answer: what is still to be asked.
func Probes(sc *scenario.Scenario, have []record.Probe) []record.Probe {
	var want []record.Probe
	for _, c := range sc.Criteria {
		p, ok := c.Check.(*check.MCPProbe)
		if !ok || p.FreeForm || slices.ContainsFunc(have, func(h record.Probe) bool { return h.Error == "" && p.Is(h) }) {
			continue
		}
		args := p.Arguments
		if args == nil {
			args = map[string]any{}
		}
		want = append(want, record.Probe{Server: p.Server, Tool: p.Tool, Arguments: args})
	}
	return want
}
