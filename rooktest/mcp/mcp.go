// Package mcp links MCP probes into a test binary: a suite whose scenarios grade an answer
// by asking an MCP server (check: mcp_probe) needs it. rookgen imports it in the generated
// code of a suite whose profile names MCP servers or whose scenarios use mcp_probe; a
// hand-written file of the test package may import it too:
//
//	import _ "github.com/rookgo/rookgo/rooktest/mcp"
package mcp

import (
	"context"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/mcpprobe"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/rooktest/internal/capability"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

func init() { capability.Probe = prober }

// prober asks the MCP servers the profile approves, with the official SDK.
func prober(p *spec.Profile, env []string) lifecycle.Prober {
	inherited := hook.Inherited(env)
	return func(ctx context.Context, req record.Probe) record.Probe {
		return mcpprobe.Call(ctx, p.MCP, p.AgentDir, inherited, mcpprobe.Request{Server: req.Server, Tool: req.Tool, Arguments: req.Arguments})
	}
}
