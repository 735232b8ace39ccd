package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/site"
	"github.com/rookgo/rookgo/internal/store"
)

// rookgen ui serves the records on a free loopback port until stopped, refuses any other
// interface, and rookgen report -site writes the same pages as files.
func TestUIAndSite(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "fake", "2026-12-01T10-00-00Z")
	red := store.NewRedactor(nil)
	require.NoError(t, red.WriteRun(filepath.Join(dir, "run.yaml"), record.Run{Version: 1, ID: filepath.Base(dir), Agent: "fake",
		Pins: record.Pins{ProfileID: "p"}, Included: []record.Entry{{ScenarioID: "SC-1", Why: "selected"}}}))

	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- serveUI(ctx, "127.0.0.1:0", &site.Site{Root: root}, func(u string) { urls <- u }) }()
	url := <-urls
	assert.True(t, strings.HasPrefix(url, "http://127.0.0.1:"), url)
	resp, err := http.Get(url + "fake/runs.html")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Contains(t, string(body), `<a href="run/2026-12-01T10-00-00Z.html">2026-12-01T10-00-00Z</a>`)
	// A page elsewhere that rebinds its own name to 127.0.0.1 sends its own Host: refused.
	for host, want := range map[string]int{"rebind.attacker.example": 421, "rebind.attacker.example:80": 421, "10.0.0.1": 421,
		"localhost": 200, "LOCALHOST:1234": 200, "127.0.0.1": 200, "[::1]:9": 200} {
		req, err := http.NewRequest(http.MethodGet, url+"fake/runs.html", nil)
		require.NoError(t, err)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, want, resp.StatusCode, host)
		if want != 200 {
			assert.NotContains(t, string(body), "2026-12-01T10-00-00Z", "%s: no record is served", host)
		}
	}
	cancel()
	require.NoError(t, <-done, "stopping the view is not an error")

	var out, errOut strings.Builder
	assert.Equal(t, 1, run([]string{"ui", "-addr", "0.0.0.0:0", "-dir", root}, &out, &errOut))
	assert.Contains(t, errOut.String(), "rookgen ui: -addr 0.0.0.0:0: the view serves records only on the loopback interface")

	siteDir := t.TempDir()
	require.Equal(t, 0, run([]string{"report", "-dir", root, "-site", siteDir}, &out, &errOut), errOut.String())
	assert.Contains(t, out.String(), "rookgen report: wrote the view of "+root+" into "+siteDir)
	page, err := os.ReadFile(filepath.Join(siteDir, "fake", "scenario", "SC-1.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<a href="../../index.html">agents</a>`, "links are relative: the folder opens from file://")
}
