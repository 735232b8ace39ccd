package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rookgo/rookgo/internal/otlp/otlptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A profile with traces: otlp runs its suite through go test with the trace receiver on:
// an agent instrumented with the OpenTelemetry Go SDK, whose hook prints no calls, passes
// and fails criteria on its spans, and report.html draws them.
func TestTracesThroughGoTest(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  execute: {command: [%q]}
traces: otlp
traces_quiet_ms: 100
capabilities: {calls: true, usage: true}
`, otlptest.Agent(t)))
	write(t, dir, "scenarios/fake/SC-1.yaml", `id: SC-1
goal: where is order 7
acceptance_criteria:
  - {id: NO-REFUND, statement: s, check: not_called, params: {name: issue_refund}}
  - {id: CHARGE-OK, statement: s, check: called, params: {name: charge_card, failed: false}}
`)
	rookgen(t, dir)
	records := t.TempDir()
	res, err := goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/fake", "-rook.dir="+records, "-rook.run-id=traced")
	require.Error(t, err, "the card was declined")
	assert.Contains(t, res.all, "receiving the agent's OpenTelemetry spans at http://127.0.0.1:")
	assert.Equal(t, "pass", res.action["TestFake/SC-1/NO-REFUND_not_called_issue_refund"], res.all)
	assert.Equal(t, "fail", res.action["TestFake/SC-1/CHARGE-OK_called_charge_card"], res.all)
	assert.NotContains(t, res.all, "declares capabilities.", "calls and usage came from the spans: the capabilities are met")
	page, err := os.ReadFile(filepath.Join(records, "fake", "traced", "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "tool charge_card: card declined")
}
