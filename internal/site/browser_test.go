package site

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
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
	assert.Equal(t, statuses(t, root, "SC-1"), eval(`Array.from(document.querySelectorAll('tr[data-id="SC-1"] .cell')).map(c => c.title.replace(/: not in this run$/, ': ').replace(/; failed .*$/, ''))`),
		"SC-1's history strip is its status in each run's report, oldest first")
	assert.Equal(t, []string{"SC-1", "SC-2", "SC-3", "SC-4", "SC-5"}, filter(`0`))
	assert.Equal(t, []string{"SC-5"}, filter(`document.querySelector('input[data-flag=never]').checked = true`))
	assert.Equal(t, []string{"SC-1"}, filter(`document.querySelector('input[data-flag=never]').checked = false; document.querySelector('select[data-filter=owner]').value = 'agent'`))
	assert.Equal(t, []string{"SC-4"}, filter(`document.querySelector('select[data-filter=owner]').value = 'judge'`))
	assert.Equal(t, []string{"SC-1", "SC-3"}, filter(`document.querySelector('select[data-filter=owner]').value = ''; document.querySelector('select[data-filter=feature]').value = 'F-1'`))
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	browsertest.SaveScreenshot(t, "view-scenarios.png", shot)
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
