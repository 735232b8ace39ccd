package site

import (
	"fmt"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
)

// chart is one trend of one profile over its runs, drawn as an inline SVG: a line through
// the runs that have the value, broken where a run does not (a run with no report, no
// decided criterion, no price table): what was not measured is no point, never zero.
type chart struct {
	Profile, Title, Unit string
	// Segments are the polylines' points ("x,y x,y"), one per unbroken stretch.
	Segments []string
	Points   []chartPoint
	// Min and Max label the y axis; Last is the newest value, "n/a" when it has none.
	Min, Max, Last string
}

type chartPoint struct {
	X, Y  float64
	Label string // "run id: value"
}

// The chart's drawing area.
const (
	chartW, chartH = 240.0, 60.0
	chartPad       = 6.0
	chartRuns      = 50 // the newest runs of a profile drawn
)

// series is what a chart reads of a run: its value, and whether it has one.
type series struct {
	title, unit string
	fixed       bool // 0 to 100, whatever the values
	value       func(report.Run) (float64, bool)
}

var trends = []series{
	{"pass rate", "%", true, func(r report.Run) (float64, bool) {
		if r.Report == nil || r.Report.Totals.Decided == 0 {
			return 0, false
		}
		return r.Report.Totals.PassRate * 100, true
	}},
	{"Unable to Verify share", "%", true, func(r report.Run) (float64, bool) {
		if r.Report == nil {
			return 0, false
		}
		t := r.Report.Totals
		judged := t.Passed + t.Failed + t.Unverifiable
		if judged == 0 {
			return 0, false
		}
		return float64(t.Unverifiable) / float64(judged) * 100, true
	}},
	{"cost", "", false, func(r report.Run) (float64, bool) {
		if r.Cost == nil || len(r.Cost.Unpriced) > 0 {
			return 0, false // a partial sum is not the run's cost
		}
		return r.Cost.Total, true
	}},
	{"p95 latency", "ms", false, func(r report.Run) (float64, bool) {
		if r.Report == nil || r.Report.Metrics.LatencyP95Ms == 0 {
			return 0, false
		}
		return float64(r.Report.Metrics.LatencyP95Ms), true
	}},
}

// charts draws each profile's trends over its newest runs, oldest left; runs are newest
// first, as history gives them.
func charts(runs []report.Run) []chart {
	var profiles []string
	byProfile := map[string][]report.Run{}
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if byProfile[r.Profile] == nil {
			profiles = append(profiles, r.Profile)
		}
		byProfile[r.Profile] = append(byProfile[r.Profile], r)
	}
	var out []chart
	for _, p := range profiles {
		rs := byProfile[p]
		if len(rs) > chartRuns {
			rs = rs[len(rs)-chartRuns:]
		}
		for _, s := range trends {
			out = append(out, draw(p, s, rs))
		}
	}
	return out
}

// draw is one series of one profile's runs.
func draw(profile string, s series, runs []report.Run) chart {
	c := chart{Profile: profile, Title: s.title, Unit: s.unit, Last: "n/a"}
	lo, hi := 0.0, 100.0
	if !s.fixed {
		first := true
		for _, r := range runs {
			if v, ok := s.value(r); ok {
				if first || v < lo {
					lo = v
				}
				if first || v > hi {
					hi = v
				}
				first = false
			}
		}
		if first {
			lo, hi = 0, 1
		}
		if hi == lo { // one value, or all the same: a band of a tenth around it
			d := max(abs(lo)/10, 1e-6)
			lo, hi = lo-d, hi+d
		}
	}
	var pricing *record.Pricing // the newest price table the runs have, for cost's currency
	for _, r := range runs {
		if r.Pricing != nil {
			pricing = r.Pricing
		}
	}
	format := func(v float64) string {
		if s.title == "cost" && pricing != nil {
			return report.Money(pricing, v)
		}
		return fmt.Sprintf("%.0f%s", v, s.unit)
	}
	c.Min, c.Max = format(max(lo, 0)), format(hi)
	step := 0.0
	if len(runs) > 1 {
		step = (chartW - 2*chartPad) / float64(len(runs)-1)
	}
	var seg []string
	flush := func() {
		if len(seg) > 0 {
			c.Segments = append(c.Segments, strings.Join(seg, " "))
		}
		seg = nil
	}
	for i, r := range runs {
		v, ok := s.value(r)
		if !ok {
			flush()
			continue
		}
		x := chartPad + step*float64(i)
		y := chartH - chartPad - (v-lo)/(hi-lo)*(chartH-2*chartPad)
		seg = append(seg, fmt.Sprintf("%.1f,%.1f", x, y))
		c.Points = append(c.Points, chartPoint{X: x, Y: y, Label: r.ID + ": " + format(v)})
		if i == len(runs)-1 {
			c.Last = format(v)
		}
	}
	flush()
	return c
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
