package page

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// The page shows an attempt's spans as a tree under the hook call they carried the
// TRACEPARENT of, an orphan apart, and a span name an agent wrote as text.
func TestThePageShowsTheSpanTree(t *testing.T) {
	root := t.TempDir()
	dir := writeRun(t, filepath.Join(root, "R1"), "R1", map[string]record.Verdict{"SC-1": {Status: record.Pass, Criteria: []record.Row{}}})
	at := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	tr := record.Trace{TraceID: "0af7651916cd43dd8448eb211c80319c", Incomplete: "1 span(s) name a parent that never arrived", Spans: []record.Span{
		{SpanID: "a1", Name: "invoke_agent support", Under: "execute turn 1", ParentSpanID: "h1", Start: at, End: at.Add(900 * time.Millisecond), Status: "ok"},
		{SpanID: "a2", ParentSpanID: "a1", Name: "execute_tool charge_card", Status: "error", StatusMessage: "card declined",
			Attributes: map[string]any{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "charge_card"}, Start: at, End: at.Add(120 * time.Millisecond)},
		{SpanID: "a3", ParentSpanID: "zz", Name: `<script>window.pwned=1</script>`, Status: "unset", Start: at, End: at},
	}}
	require.NoError(t, store.NewRedactor(nil).JSON(filepath.Join(dir, "scenarios", "SC-1", "evidence", "traces.json"), tr))
	html := pageOf(t, build(t, dir, ""))
	assert.Contains(t, html, "<h3>Trace <code>0af7651916cd43dd8448eb211c80319c</code></h3>")
	assert.Contains(t, html, "incomplete: 1 span(s) name a parent that never arrived")
	assert.Contains(t, html, `<summary><span class="s-other">execute turn 1</span>`)
	assert.Contains(t, html, `invoke_agent support</span> <span class="muted">900 ms</span></summary><div class="child"><details open><summary><span class="s-fail">execute_tool charge_card</span> <span class="muted">120 ms</span> <span class="badge">tool charge_card: card declined</span> <span class="s-fail">error</span>`)
	assert.Contains(t, html, "a parent that never arrived")
	assert.Contains(t, html, "&lt;script&gt;window.pwned=1&lt;/script&gt;")
	assert.NotContains(t, html, "<script>window.pwned")
}
