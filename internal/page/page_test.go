package page

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/report"
	"github.com/rookgo/rookgo/internal/testkit"
)

var writeRun = testkit.WriteRun

// build is report.Build, failing the test on an error, closed when the test ends.
func build(t *testing.T, dir, base string) *report.Report {
	t.Helper()
	r, err := report.Build(dir, base)
	require.NoError(t, err)
	t.Cleanup(r.Close)
	return r
}

// pageOf is the page of r.
func pageOf(t *testing.T, r *report.Report) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, Write(&b, r))
	return b.String()
}

// The page leads with the headline and the first failed criterion, colours the status
// column, names who must act on each row, and shows each failed criterion's evidence.
func TestThePageLeadsWithWhatFailed(t *testing.T) {
	root := t.TempDir()
	forbidden := record.Verdict{Status: record.Fail, Criteria: []record.Row{},
		ForbiddenHits: []record.ForbiddenHit{{Text: "refund issued", Turn: 2, Quote: "your refund issued today"}}}
	failC1 := record.Verdict{Status: record.Fail, Criteria: []record.Row{{CriterionID: "C1", Status: record.Fail, Expected: "e", Achieved: "a"}}}
	hook := record.Verdict{Status: record.Fail, Failure: "execute: exit status 3", Criteria: []record.Row{}}
	dir := writeRun(t, filepath.Join(root, "R1"), "R1", map[string]record.Verdict{"SC-1": forbidden, "SC-2": failC1, "SC-3": hook})
	html := pageOf(t, build(t, dir, ""))

	assert.Contains(t, html, `<p class="headline" id="headline">3 failed`)
	assert.Contains(t, html, "appeared in turn 2", "the page's criteria show the forbidden hit")
	assert.Contains(t, html, `<p class="why" id="why"><b>Why it failed:</b> <a href="#sc-SC-1">SC-1</a> forbidden: expected &#34;refund issued&#34; never appears in the agent&#39;s replies; &#34;refund issued&#34; appeared in turn 2 (2 failed criteria in all, below)</p>`,
		"the first failure is said above the fold")
	assert.Contains(t, html, `<td class="st s-fail">Fail</td>`, "the status column is coloured")
	assert.Contains(t, html, `data-owner="harness"><td><a href="#sc-SC-3">SC-3</a>`)
	assert.Contains(t, html, `<p id="owners">Who must act: `)
}

// A panel of judges is shown with what report.yaml says of it: its effective votes and
// each member's outs, controls and agreement; a member's name is text, escaped.
func TestThePageShowsAJudgePanel(t *testing.T) {
	dir := writeRun(t, filepath.Join(t.TempDir(), "R1"), "R1", map[string]record.Verdict{"SC-1": {Status: record.Pass, Criteria: []record.Row{}}})
	r := build(t, dir, "")
	votes := 1.8
	r.Panel = &record.PanelTotals{Rule: "majority", EffectiveVotes: &votes, Members: []record.PanelMemberTotals{
		{Model: "careful-a", Requests: 3, Controls: 8, ControlsRight: 8, Shared: 22, Agreed: 18},
		{Model: "<script>careless</script>", Requests: 3, Out: 3, Controls: 8, ControlsRight: 4, Shared: 22, Agreed: 14}}}
	html := pageOf(t, r)
	assert.Contains(t, html, `<p id="panel">2 members (majority), worth 1.80 independent votes on the controls</p>`)
	assert.Contains(t, html, `<tr><td>&lt;script&gt;careless&lt;/script&gt;</td><td>3 / 3</td><td>4 / 8</td><td>14 / 22</td></tr>`)
	assert.NotContains(t, html, "<script>careless")
}

// A scenario whose user was simulated says how its conversation ended, as its verdict does.
func TestThePageSaysHowASimulatedConversationEnded(t *testing.T) {
	v := record.Verdict{Status: record.Pass, Criteria: []record.Row{}, SimulatedUser: "gave up after 2 turn(s): the agent <b>refused</b>"}
	dir := writeRun(t, filepath.Join(t.TempDir(), "R1"), "R1", map[string]record.Verdict{"SC-7": v})
	html := pageOf(t, build(t, dir, ""))
	assert.Contains(t, html, `<p class="muted" id="simulated-SC-7">simulated user: gave up after 2 turn(s): the agent &lt;b&gt;refused&lt;/b&gt;</p>`)
}
