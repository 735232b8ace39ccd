package gen

import (
	"fmt"
	"strings"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/redteam"
	"github.com/rookgo/rookgo/internal/scenario"
)

// Signals says how every red-team signal of the agents' scenarios is read, one line each:
// the rule that decides it (and the criterion a criterion-bound one names), or that it is
// left to the judge model.
func Signals(agents []Agent) []string {
	var out []string
	for _, a := range agents {
		for _, sc := range a.Scenarios {
			if sc.Redteam == nil {
				continue
			}
			for _, side := range []struct {
				name string
				list []redteam.Signal
			}{{"success", sc.Redteam.Success}, {"failure", sc.Redteam.Failure}} {
				for _, s := range side.list {
					out = append(out, fmt.Sprintf("%s %s %s signal: %s: %.90q", a.Name, sc.ID, side.name, readAs(sc, s), strings.Join(strings.Fields(s.Raw), " ")))
				}
			}
		}
	}
	return out
}

// readAs names the rule a signal is read by.
func readAs(sc *scenario.Scenario, s redteam.Signal) string {
	switch s.Kind {
	case redteam.Criterion:
		for _, c := range sc.Criteria {
			if s.Names(c.Statement) {
				return "criterion " + c.ID
			}
		}
		return "criterion (names none of the scenario's: decides nothing)"
	case redteam.Judge:
		return "left to the judge model"
	}
	return s.ReadAs()
}

// probeWarnings names the mcp_probe criteria whose server no profile of the agent approves:
// they stay Unable to Verify in every run.
func probeWarnings(a Agent, rel func(string) string) []string {
	var out []string
	for _, sc := range a.Scenarios {
		for _, c := range sc.Criteria {
			p, ok := c.Check.(*check.MCPProbe)
			if !ok || p.FreeForm {
				continue
			}
			approved := false
			for _, prof := range a.Profiles {
				_, ok := prof.MCPServerNamed(p.Server)
				approved = approved || ok
			}
			if !approved {
				out = append(out, fmt.Sprintf("%s:%d: criterion %s probes mcp server %q, which no profile of agent %s approves (mcp:), so it is never started and the criterion stays Unable to Verify",
					rel(sc.File), c.Line, c.ID, p.Server, a.Name))
			}
		}
	}
	return out
}
