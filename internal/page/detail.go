package page

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/store"
)

// Detail is a scenario's records, for reading.
type Detail struct {
	Verdict    *record.Verdict
	Transcript []record.Message
	Calls      []Call
	Phases     []Phase
	// Quotes are its criteria's quoted evidence, marked where they occur in its transcript.
	Quotes []string
	// Trace is the attempt's trace when traces were on; nil otherwise.
	Trace *Trace
}

// Call is a tool call as the page shows it.
type Call struct {
	Name, Arguments, Output string
}

// Phase is a hook's record as the page shows it.
type Phase struct {
	Name       string
	OK         bool
	DurationMs int64
	Stderr     string
}

// Detail is what the page shows of scenario s of the report, read from its records when
// the page is written, one scenario at a time (a page of thousands never holds them all);
// nil when the scenario has no verdict that can be trusted.
func (v view) Detail(s report.Scenario) *Detail {
	dir := store.Store{Dir: v.Dir}.ScenarioDir(s.ID)
	verdict, err := store.ReadVerdict(dir)
	if err != nil || verdict.Status == "" {
		return nil
	}
	return detail(dir, verdict)
}

// detail reads what the page shows of a scenario: the transcript, calls and phases.
func detail(dir string, v *record.Verdict) *Detail {
	d := &Detail{Verdict: v, Quotes: quotes(v), Trace: readTrace(dir)}
	var resp record.Response
	if data, err := os.ReadFile(filepath.Join(dir, "response.json")); err == nil && store.DecodeJSON(data, &resp) == nil {
		d.Transcript = resp.Transcript
		if resp.Calls != nil {
			for _, c := range *resp.Calls {
				d.Calls = append(d.Calls, Call{Name: c.Name, Arguments: jsonText(c.Arguments), Output: jsonText(c.Output)})
			}
		}
	}
	if h, err := store.ReadHooks(dir); err == nil {
		for _, p := range []struct {
			name string
			rec  *record.PhaseRecord
		}{{"open", h.Phases.Open}, {"execute", h.Phases.Execute}, {"close", h.Phases.Close}, {"collect", h.Phases.Collect}} {
			if p.rec != nil {
				d.Phases = append(d.Phases, Phase{Name: p.name, OK: p.rec.OK, DurationMs: p.rec.DurationMs, Stderr: p.rec.Stderr})
			}
		}
	}
	return d
}

// jsonText is a call's arguments or output as JSON text; "" for none.
func jsonText(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
