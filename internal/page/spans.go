package page

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// SpanNode is a span as the page shows it, with the spans under it.
type SpanNode struct {
	Name, Status, Detail string
	Ms                   int64
	Children             []SpanNode
}

// Trace is an attempt's trace as the page shows it: its spans as a tree under the hook
// calls whose TRACEPARENT they carried, and why it is not complete, if it is not.
type Trace struct {
	ID         string
	Incomplete string
	Roots      []SpanNode
}

// maxShownSpans bounds the spans the page draws of one attempt.
const maxShownSpans = 300

// readTrace reads a scenario's evidence/traces.json; nil when it has none.
func readTrace(dir string) *Trace {
	data, err := os.ReadFile(filepath.Join(dir, "evidence", "traces.json"))
	if err != nil {
		return nil
	}
	var t record.Trace
	if json.Unmarshal(data, &t) != nil {
		return nil
	}
	out := &Trace{ID: t.TraceID, Incomplete: t.Incomplete}
	spans := t.Spans
	if len(spans) > maxShownSpans {
		spans = spans[:maxShownSpans]
		out.Incomplete = strings.TrimPrefix(out.Incomplete+fmt.Sprintf("; the page shows the first %d spans", maxShownSpans), "; ")
	}
	known := map[string]bool{}
	children := map[string][]record.Span{}
	for _, sp := range spans {
		known[sp.SpanID] = true
	}
	// Roots are grouped under the hook call they sat under, or under "no parent that
	// arrived" when their parent never did.
	groups := map[string][]record.Span{}
	for _, sp := range spans {
		switch {
		case sp.Under != "":
			groups[sp.Under] = append(groups[sp.Under], sp)
		case sp.ParentSpanID == "" || !known[sp.ParentSpanID]:
			groups["a parent that never arrived"] = append(groups["a parent that never arrived"], sp)
		default:
			children[sp.ParentSpanID] = append(children[sp.ParentSpanID], sp)
		}
	}
	labels := make([]string, 0, len(groups))
	for l := range groups {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	for _, l := range labels {
		n := SpanNode{Name: l, Status: "hook"}
		for _, sp := range groups[l] {
			n.Children = append(n.Children, node(sp, children, 0))
		}
		out.Roots = append(out.Roots, n)
	}
	return out
}

// node is sp and its descendants, no deeper than 32.
func node(sp record.Span, children map[string][]record.Span, depth int) SpanNode {
	n := SpanNode{Name: sp.Name, Status: sp.Status, Ms: sp.End.Sub(sp.Start).Milliseconds()}
	if c, ok := observe.SpanCall(sp); ok {
		n.Detail = "tool " + c.Name
		if c.Error != "" {
			n.Detail += ": " + c.Error
		}
	}
	if sp.Late {
		n.Detail = strings.TrimPrefix(n.Detail+"; ", "; ") + "late: arrived after the attempt was first judged"
	}
	if depth < 32 {
		for _, ch := range children[sp.SpanID] {
			n.Children = append(n.Children, node(ch, children, depth+1))
		}
	}
	return n
}
