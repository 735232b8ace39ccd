package lifecycle_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/otlp"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// A real exporter whose batch arrives after the quiet window, retried once: the verdict
// does not pass not_called on the silence (the turn exported no span in time); the spans
// that come later are counted once, join the attempt's trace, and decide it again: the
// refund they show fails NO-REFUND in verdict.yaml, run.yaml and report.yaml, and judging
// the records again agrees.
func TestLateSpansFromARealExporterAreNamed(t *testing.T) {
	recv, err := otlp.Start()
	require.NoError(t, err)
	t.Cleanup(func() { _ = recv.Close() })
	svc := startService(t, recv.Endpoint(), service{hold: true, retry: true, work: refund})
	f := newRun(t, map[string]string{"FAKEHOOK_EXECUTE": "post:" + svc.url}, "hooks:\n  execute: {command: [BIN]}\n")
	f.cfg.Traces, f.cfg.TracesQuiet = recv, 100*time.Millisecond
	f.restart(t, nil)
	o := f.run.Scenario(context.Background(), parseScenario(t, "goal: refund order 7\nacceptance_criteria:\n  - {id: NO-REFUND, statement: s, check: not_called, params: {name: issue_refund}}\n"), f.logs.add)
	require.NotNil(t, o.Verdict, "%v", o.Attempts[0].Failures)
	row := o.Verdict.Criteria[0]
	assert.Equal(t, record.UnableToVerify, row.Status, row.Achieved)
	assert.Contains(t, row.Achieved, "execute turn 1 exported no span")

	svc.flush(t) // the slow batch, after the verdict
	assert.Equal(t, int32(2), svc.exports.Load(), "the exporter retried")
	rep, err := f.run.Finish(context.Background(), time.Now())
	require.NoError(t, err)
	require.Len(t, rep.LateSpans, 1)
	late := rep.LateSpans[0]
	assert.Equal(t, 2, late.Spans, "two spans, sent twice, counted once")
	assert.Equal(t, []string{"issue_refund"}, late.Tools)
	assert.Equal(t, record.UnableToVerify, late.Was)
	assert.Equal(t, record.Fail, late.Now)
	assert.Equal(t, []string{"NO-REFUND (not_called): Unable to Verify → Fail"}, late.Changed)
	var run record.Run
	b, err := os.ReadFile(filepath.Join(f.run.Dir, "run.yaml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, &run))
	assert.Equal(t, rep.LateSpans, run.LateSpans)
	assert.Equal(t, 1, rep.Totals.Failed, "report.yaml counts the verdict as decided again")

	dir := filepath.Join(f.run.Dir, "scenarios", o.Scenario.ID)
	v, err := store.ReadVerdict(dir)
	require.NoError(t, err)
	assert.Equal(t, record.Fail, v.Status)
	assert.Contains(t, v.DecidedAgain, "2 span(s) of its trace that arrived after it was first judged")
	assert.Contains(t, v.DecidedAgain, "it was Unable to Verify")
	var tr record.Trace
	b, err = os.ReadFile(filepath.Join(dir, "evidence", "traces.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &tr))
	require.Len(t, tr.Spans, 2)
	assert.True(t, tr.Spans[0].Late && tr.Spans[1].Late)
	assert.Contains(t, tr.Incomplete, "2 span(s) arrived after the attempt was judged")

	// Judged again from the records alone, as -rook.phases=judge does: the same verdict,
	// and nothing untrusted.
	f.cfg.Traces = nil
	f.again(t, lifecycle.Selection{spec.Judge: true})
	again := f.run.Scenario(context.Background(), o.Scenario, f.logs.add)
	require.NotNil(t, again.Verdict)
	assert.Equal(t, record.Fail, again.Verdict.Status)
	assert.Empty(t, again.Verdict.Untrusted)
}
