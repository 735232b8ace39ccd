package rooktest

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/store"
)

// gate is -rook.gate: fail the run only on a significant regression against a baseline
// run, as rookgen gate decides it.
type gate struct {
	on    bool
	max   int
	alpha float64
	// base names the baseline run; "" is the profile's previous run.
	base string
	// chosen says base was chosen, not named: the profile's last complete run.
	chosen bool
}

// parseGate reads -rook.gate (given as as): "on" for the defaults (no regression allowed,
// alpha 0.05, the previous run), or a comma-separated list of alpha=A, max-regressions=N,
// base=ID.
func parseGate(s, as string) (gate, error) {
	g := gate{alpha: 0.05}
	s = strings.TrimSpace(s)
	if s == "" || s == "off" {
		return g, nil
	}
	g.on = true
	if s == "on" {
		return g, nil
	}
	bad := func(why string) (gate, error) {
		return gate{}, fmt.Errorf("%s=%s: %s; want on, or alpha=0.05,max-regressions=0,base=<run id>", as, s, why)
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return bad(fmt.Sprintf("%q is not key=value", kv))
		}
		var err error
		switch k {
		case "alpha":
			g.alpha, err = strconv.ParseFloat(v, 64)
			if err == nil && (g.alpha <= 0 || g.alpha >= 1) {
				err = fmt.Errorf("out of (0, 1)")
			}
		case "max-regressions":
			g.max, err = strconv.Atoi(v)
			if err == nil && g.max < 0 {
				err = fmt.Errorf("negative")
			}
		case "base":
			if !store.ValidRunID(v) {
				err = fmt.Errorf("not a run id")
			}
			g.base = v
		default:
			return bad(fmt.Sprintf("unknown key %q", k))
		}
		if err != nil {
			return bad(fmt.Sprintf("%s=%s: %v", k, v, err))
		}
	}
	return g, nil
}

// decide compares the finished run in dir with its baseline and fails t on a significant
// regression, saying the test and its numbers either way.
func (g gate) decide(t tb, dir string) {
	if !g.on {
		return
	}
	base := report.Previous(dir)
	if g.base != "" {
		base = filepath.Join(filepath.Dir(dir), g.base)
	}
	if base == "" {
		logf(t, "rook gate: no earlier complete run of this profile to compare with; the gate has nothing to decide")
		return
	}
	r, err := report.Build(dir, base)
	if err != nil {
		errorf(t, "rook gate: %v", err)
		return
	}
	r.Close() // the gate reads the changes, not the rows
	fails, says := r.Changes.Gate(g.max, g.alpha)
	msg := fmt.Sprintf("rook gate: run %s against %s: %s", r.RunID, report.BaseNote(dir, base, !g.chosen), says)
	if fails {
		errorf(t, "%s", msg)
		return
	}
	logf(t, "%s", msg)
}

// lastComplete is the id of the gate's baseline before this run starts: the newest complete
// run of agent's profile under records other than skip (report.LastComplete); "" when there
// is none.
func lastComplete(records, agent, profile, skip string) string {
	dir, _ := report.LastComplete(records, agent, profile, func(o store.RunDir) bool { return o.ID != skip })
	if dir == "" {
		return ""
	}
	return filepath.Base(dir)
}
