package lifecycle_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/otlp"
	"github.com/rookgo/rookgo/internal/record"
)

// A real exporter whose batch arrives after the quiet window, retried once: the verdict
// does not pass not_called on the silence (the turn exported no span in time), and the
// spans that come later are counted once, named in run.yaml and report.yaml with the
// criterion they could have changed.
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
	rep, err := f.run.Finish(time.Now())
	require.NoError(t, err)
	require.Len(t, rep.LateSpans, 1)
	late := rep.LateSpans[0]
	assert.Equal(t, 2, late.Spans, "two spans, sent twice, counted once")
	assert.Equal(t, []string{"issue_refund"}, late.Tools)
	assert.Equal(t, []string{"NO-REFUND (not_called)"}, late.CouldChange)
	var run record.Run
	b, err := os.ReadFile(filepath.Join(f.run.Dir, "run.yaml"))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, &run))
	assert.Equal(t, rep.LateSpans, run.LateSpans)
}
