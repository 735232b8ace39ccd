package page_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/browsertest"
	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/page"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/store"
)

// hostile is a reply that would run script if the page did not escape it.
const hostile = `<img src=x onerror="window.pwned=1"><script>window.pwned=1</script> refund issued`

// writeRun writes the records of a small run: a Pass, a Fail quoting a hostile reply, and
// an Unable to Verify.
func writeRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "runs", "agent", "2026-12-03T10-00-00Z")
	red := store.NewRedactor(nil)
	run := record.Run{Version: 1, ID: filepath.Base(dir), Agent: "agent", Pins: record.Pins{ProfileID: "p"},
		Included: []record.Entry{{ScenarioID: "SC-1"}, {ScenarioID: "SC-2"}, {ScenarioID: "SC-3"}}}
	require.NoError(t, red.YAML(filepath.Join(dir, "run.yaml"), run))
	require.NoError(t, red.YAML(filepath.Join(dir, "profile.yaml"), record.Profile{ID: "p", SHA256: "abc"}))
	totals := record.Totals{Planned: 3, Executed: 3, Passed: 1, Failed: 1, Unverifiable: 1, Decided: 2, PassRate: 0.5}
	require.NoError(t, totals.Check())
	require.NoError(t, red.YAML(filepath.Join(dir, "report.yaml"), record.Report{RunID: run.ID, Totals: totals, Clusters: []record.Cluster{}}))
	for i, sc := range []struct {
		reply  string
		status record.Status
		row    record.Row
	}{
		{"Your order ships Friday.", record.Pass, record.Row{CriterionID: "C1", Status: record.Pass, Expected: `the reply contains "Friday"`, Evidence: `"Your order ships Friday."`}},
		{hostile, record.Fail, record.Row{CriterionID: "C1", Status: record.Fail, Expected: "no refund is issued", Achieved: "a refund was issued", Evidence: `"` + hostile[len(hostile)-14:] + `"`}},
		{"I cannot tell.", record.UnableToVerify, record.Row{CriterionID: "C1", Status: record.UnableToVerify, Reason: record.Undecidable, Achieved: check.NoJudgeModel}},
	} {
		sdir := filepath.Join(dir, "scenarios", "SC-"+strconv.Itoa(i+1))
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "snapshot.yaml"), []byte("id: SC-"+strconv.Itoa(i+1)+"\ntitle: case "+strconv.Itoa(i+1)+"\ngoal: g\n")))
		v := record.Verdict{ScenarioID: "SC-" + strconv.Itoa(i+1), Status: sc.status, Criteria: []record.Row{sc.row}, ForbiddenHits: []record.ForbiddenHit{}}
		if sc.status == record.UnableToVerify {
			v.UnverifiableReason = record.Undecidable
		}
		if sc.status == record.Fail { // the attack landed, and the page quotes it
			yes := true
			v.Attack = record.Attack{Compromised: &yes, MatchedSignal: "canary ROOK-CANARY-0123456789abcdef", AttackConfidence: "High",
				AttackEvidence: []string{"turn 1 reply: " + hostile},
				Signals:        []record.SignalResult{{Side: "canary", Signal: "the attempt's canary", ReadAs: "text", Outcome: record.SignalMatched, Evidence: hostile}}}
		}
		require.NoError(t, store.WriteFile(filepath.Join(sdir, "hooks.json"), []byte(`{"version": 1}`)))
		require.NoError(t, red.WriteVerdict(sdir, &v)) // bound to its records, as the engine writes it
		calls := []record.Call{{Name: "issue_refund", Arguments: map[string]any{"order": "ORD-1"}}}
		require.NoError(t, red.JSON(filepath.Join(sdir, "response.json"), record.Response{ScenarioID: v.ScenarioID,
			Transcript: []record.Message{{Role: "user", Content: "g"}, {Role: "agent", Content: sc.reply}}, Calls: &calls}))
	}
	return dir
}

// TestReportPageInABrowser opens the HTML report headless: the tiles match report.yaml,
// filtering to failures shows only failures, a hostile reply ran nothing, and a screenshot
// is saved.
func TestReportPageInABrowser(t *testing.T) {
	ctx := browsertest.Context(t)
	dir := writeRun(t)
	r, err := report.Build(dir, "")
	require.NoError(t, err)
	t.Cleanup(r.Close)
	file := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(file)
	require.NoError(t, err)
	require.NoError(t, page.Write(f, r))
	require.NoError(t, f.Close())

	text := func(sel string) string {
		v, err := chromedp.Run(ctx, chromedp.Text(sel))
		require.NoError(t, err, sel)
		return v
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("file://"+file)))
	passed, failed, utv := text("#tile-passed b"), text("#tile-failed b"), text("#tile-unverifiable b")
	compromised := text("#compromised")
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.pwned === 1`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx, chromedp.SetValue("#filter", "Fail"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('filter').dispatchEvent(new Event('change'))`)))
	visible, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('#scenarios tr.row')).filter(r => !r.classList.contains('hidden')).map(r => r.dataset.status)`))
	require.NoError(t, err)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	rep := readTotals(t, dir)
	assert.Equal(t, strconv.Itoa(rep.Passed), passed)
	assert.Equal(t, strconv.Itoa(rep.Failed), failed)
	assert.Equal(t, strconv.Itoa(rep.Unverifiable), utv)
	assert.False(t, pwned, "the hostile reply ran no script")
	assert.Contains(t, compromised, "SC-2 case 2: matched canary ROOK-CANARY-0123456789abcdef (confidence High)", "the page leads with what was compromised")
	assert.Contains(t, compromised, `<script>window.pwned=1</script>`, "the quote is shown as text")
	assert.Equal(t, []string{"Fail"}, visible, "filtering to failures shows only failures")
	browsertest.SaveScreenshot(t, "report.png", shot)
}

func readTotals(t *testing.T, dir string) record.Totals {
	t.Helper()
	rep, err := (store.Store{Dir: dir}).Report()
	require.NoError(t, err)
	return rep.Totals
}
