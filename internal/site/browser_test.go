package site

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/browsertest"
	"github.com/rookgo/rookgo/internal/store"
)

// TestViewInABrowser opens the served view over five runs headless: the history strip of
// a scenario is its status in each run's report, the never-run and owner filters leave
// exactly the expected rows, nothing an agent wrote runs on any page, and a page reloads
// when a run is added.
func TestViewInABrowser(t *testing.T) {
	ctx := browsertest.Context(t)
	root, module := fixture(t)
	srv := httptest.NewServer((&Site{Root: root, Module: module}).Handler())
	defer srv.Close()

	eval := func(js string) []string {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](js))
		require.NoError(t, err, js)
		return v
	}
	pwned := func() bool {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.pwned === 1`))
		require.NoError(t, err)
		return v
	}
	filter := func(js string) []string {
		require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](js+`; document.getElementById('filters').dispatchEvent(new Event('change'))`)))
		return eval(`Array.from(document.querySelectorAll('#scenarios tr.row')).filter(r => !r.classList.contains('hidden')).map(r => r.dataset.id)`)
	}

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/fake/scenarios.html")))
	// One strip per profile: p's runs, then q's.
	byProfile := slices.Concat(slices.DeleteFunc(statuses(t, root, "SC-1"), func(s string) bool { return strings.HasPrefix(s, "2026-11-04") }),
		slices.DeleteFunc(statuses(t, root, "SC-1"), func(s string) bool { return !strings.HasPrefix(s, "2026-11-04") }))
	assert.Equal(t, byProfile, eval(`Array.from(document.querySelectorAll('tr[data-id="SC-1"] .cell')).map(c => c.title.replace(/; profile [^;]*$/, '').replace(/, excused by .*$/, '').replace(/: not in this run$/, ': ').replace(/; failed .*$/, ''))`),
		"SC-1's history strips are its status in each run's report, oldest first, one strip per profile")
	assert.Equal(t, []string{"SC-1", "SC-2", "SC-3", "SC-4", "SC-5"}, filter(`0`))
	assert.Equal(t, []string{"SC-5"}, filter(`document.querySelector('input[data-flag=never]').checked = true`))
	assert.Equal(t, []string{"SC-1"}, filter(`document.querySelector('input[data-flag=never]').checked = false; document.querySelector('select[data-filter=owner]').value = 'agent'`))
	assert.Equal(t, []string{"SC-4"}, filter(`document.querySelector('select[data-filter=owner]').value = 'judge'`))
	assert.Equal(t, []string{"SC-1", "SC-3"}, filter(`document.querySelector('select[data-filter=owner]').value = ''; document.querySelector('select[data-filter=feature]').value = 'F-1'`))
	// The strip marks each run's profile, and a failure the run's quarantine excused.
	assert.Equal(t, []string{"p", "p", "p", "p", "q"}, eval(`Array.from(document.querySelectorAll('tr[data-id="SC-1"] .cell')).map(c => c.dataset.profile)`))
	assert.Equal(t, []string{"2026-11-04T10-00-00Z: Fail, excused by quarantine; failed C2; profile q"},
		eval(`Array.from(document.querySelectorAll('tr[data-id="SC-1"] .cell.excused')).map(c => c.title)`))
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	browsertest.SaveScreenshot(t, "view-scenarios.png", shot)

	// The agent page draws each profile's trends: pass rate, Unable to Verify share, cost
	// and p95 latency over its runs, a point a run.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/fake/")))
	assert.Equal(t, []string{"p pass rate", "p Unable to Verify share", "p cost", "p p95 latency", "q pass rate", "q Unable to Verify share", "q cost", "q p95 latency"},
		eval(`Array.from(document.querySelectorAll('#trends figure')).map(f => f.dataset.profile + ' ' + f.dataset.trend)`))
	assert.Equal(t, []string{"4", "1"}, eval(`['p', 'q'].map(p => String(document.querySelectorAll('figure[data-profile="'+p+'"][data-trend="p95 latency"] circle').length))`))
	assert.Equal(t, []string{"2026-11-01T10-00-00Z: 1200ms", "2026-11-02T10-00-00Z: 1200ms", "2026-11-03T10-00-00Z: 1100ms", "2026-11-05T10-00-00Z: 1300ms"},
		eval(`Array.from(document.querySelectorAll('figure[data-profile="p"][data-trend="p95 latency"] circle title')).map(t => t.textContent)`))
	widths := eval(`Array.from(document.querySelectorAll('#trends svg')).map(s => String(Math.round(s.getBoundingClientRect().width)))`)
	for _, w := range widths {
		assert.Equal(t, "240", w, "each chart is drawn")
	}
	shot, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	browsertest.SaveScreenshot(t, "view-agent.png", shot)
	assert.False(t, pwned(), "an agent's title ran nothing on the scenarios page")

	for _, page := range []string{"/fake/scenario/SC-3.html", "/fake/run/2026-11-05T10-00-00Z.html", "/fake/", "/fake/runs.html"} {
		require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL+page)))
		assert.False(t, pwned(), "nothing an agent wrote ran on %s", page)
	}
	shot, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	browsertest.SaveScreenshot(t, "view-runs.png", shot)

	// A new run appears: the open page reloads by itself and lists it.
	require.NoError(t, chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.marker = 1`)))
	src, dst := filepath.Join(root, "fake", "2026-11-05T10-00-00Z"), filepath.Join(root, "fake", "2026-11-06T10-00-00Z")
	require.NoError(t, store.CopyTree(src, dst, nil))
	run, err := os.ReadFile(filepath.Join(dst, "run.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dst, "run.yaml"), run, 0o644))
	wait, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(wait, chromedp.WaitVisible(`a[href="run/2026-11-06T10-00-00Z.html"]`)), "the page reloaded and lists the new run")
	reloaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.marker === undefined`))
	require.NoError(t, err)
	assert.True(t, reloaded)
}
