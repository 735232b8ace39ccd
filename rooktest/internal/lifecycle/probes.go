package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/mcpprobe"
	"github.com/rookgo/rookgo/internal/record"
)

// probesFile keeps, under an attempt's evidence/, the MCP servers' answers its mcp_probe
// criteria read.
const probesFile = "mcp-probes.json"

// probeTimeout bounds one probe: starting or reaching the server, listing its tools, the
// call.
const probeTimeout = 30 * time.Second

// probe asks the MCP servers the attempt's mcp_probe criteria name, once collect is done,
// and puts their answers in the evidence. An answer already recorded is read, not asked
// again (the run is judged again from its records); one that failed is asked again.
func (a *attemptRun) probe(ctx context.Context, ev *check.Evidence) {
	var want []*check.MCPProbe
	for _, c := range a.sc.Criteria {
		if p, ok := c.Check.(*check.MCPProbe); ok && !p.FreeForm {
			want = append(want, p)
		}
	}
	if len(want) == 0 {
		return
	}
	path := filepath.Join(a.dir, "evidence", probesFile)
	var have []record.Probe
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &have); err != nil {
			a.record(fmt.Errorf("%s is corrupt, so its probes are asked again: %w", probesFile, err))
			have = nil
		}
	}
	have = slices.DeleteFunc(have, func(p record.Probe) bool { return p.Error != "" })
	asked := false
	for _, w := range want {
		if slices.ContainsFunc(have, w.Is) {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		p := mcpprobe.Call(pctx, a.r.cfg.Profile.MCP, a.r.cfg.Profile.AgentDir, hook.Inherited(a.r.cfg.Env),
			mcpprobe.Request{Server: w.Server, Tool: w.Tool, Arguments: w.Arguments})
		cancel()
		if a.log != nil {
			msg := fmt.Sprintf("mcp_probe %s %s: answered in %d ms", w.Server, w.Tool, p.DurationMs)
			if p.Error != "" {
				msg = fmt.Sprintf("mcp_probe %s %s: %s", w.Server, w.Tool, p.Error)
			}
			a.log(msg)
		}
		have, asked = append(have, p), true
	}
	if asked {
		a.record(a.r.cfg.Redactor.JSON(path, have))
	}
	ev.Probes = have
}
