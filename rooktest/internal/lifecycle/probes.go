package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/rookgo/rookgo/internal/decide"
	"github.com/rookgo/rookgo/internal/record"
)

// probesFile keeps, under an attempt's evidence/, the MCP servers' answers its mcp_probe
// criteria read.
const probesFile = "mcp-probes.json"

// probeTimeout bounds one probe: starting or reaching the server, listing its tools, the
// call.
const probeTimeout = 30 * time.Second

// probe asks the MCP servers the attempt's mcp_probe criteria name, once collect is done,
// and keeps their answers in evidence/. An answer already recorded is read, not asked
// again (the run is judged again from its records); one that failed is asked again.
func (a *attemptRun) probe(ctx context.Context) {
	have, _ := a.readProbes()
	want := decide.Probes(a.sc, have)
	if len(want) == 0 {
		return
	}
	have = slices.DeleteFunc(have, func(p record.Probe) bool { return p.Error != "" })
	for _, w := range want {
		p := w
		if a.r.cfg.Probe == nil {
			p.Error = "this test binary cannot ask MCP servers"
		} else {
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			p = a.r.cfg.Probe(pctx, w)
			cancel()
		}
		if a.log != nil {
			msg := fmt.Sprintf("mcp_probe %s %s: answered in %d ms", w.Server, w.Tool, p.DurationMs)
			if p.Error != "" {
				msg = fmt.Sprintf("mcp_probe %s %s: %s", w.Server, w.Tool, p.Error)
			}
			a.log(msg)
		}
		for _, l := range p.LeftRunning {
			a.probeLeft = append(a.probeLeft, "mcp server "+w.Server+": "+l)
		}
		have = append(have, p)
	}
	a.record(a.r.cfg.Redactor.JSON(filepath.Join(a.dir, "evidence", probesFile), have))
}

// readProbes reads the probes' recorded answers; ok is false when none were recorded.
func (a *attemptRun) readProbes() ([]record.Probe, bool) {
	b, err := os.ReadFile(filepath.Join(a.dir, "evidence", probesFile))
	if err != nil {
		return nil, false
	}
	var have []record.Probe
	if err := json.Unmarshal(b, &have); err != nil {
		a.record(fmt.Errorf("%s is corrupt, so its probes are asked again: %w", probesFile, err))
		return nil, false
	}
	return have, true
}
