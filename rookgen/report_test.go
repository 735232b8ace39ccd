package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportWhatChanged runs a suite twice, with one scenario edited and the agent changed
// in between, and reads the second run back: what failed anew, what was fixed, what was
// redefined; the JSON has report.yaml's totals; the step summary is appended; the HTML page
// escapes a hostile reply.
func TestReportWhatChanged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated package twice")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\"}\ncapabilities: {calls: true}\n", os.Args[0]))
	scenario := func(id, want string) {
		write(t, dir, "scenarios/fake/"+id+".yaml", "id: "+id+"\ngoal: hello <script>window.pwned=1</script>\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: "+want+"}}\n")
	}
	linkPage(t, dir, "fake")
	scenario("SC-FIXED", "hello")
	scenario("SC-BROKEN", "hello")
	scenario("SC-EDITED", "hello")
	scenario("SC-STILL", "goodbye")
	gen := func() {
		var stdout, stderr bytes.Buffer
		require.Equal(t, 0, run([]string{"-root", dir}, &stdout, &stderr), stderr.String())
	}
	gen()
	records := filepath.Join(t.TempDir(), "runs")
	first := []string{goflags, `FAKEHOOK_EXECUTE_SC_FIXED=json:{"output": "nothing", "calls": []}`}
	_, err := goTest(t, dir, first, "./scenarios/fake", "-rook.dir="+records)
	require.Error(t, err)
	scenario("SC-EDITED", "hel")
	gen()
	second := []string{goflags, `FAKEHOOK_EXECUTE_SC_BROKEN=json:{"output": "nothing", "calls": []}`}
	_, err = goTest(t, dir, second, "./scenarios/fake", "-rook.dir="+records)
	require.Error(t, err)

	summary := filepath.Join(t.TempDir(), "summary.md")
	t.Setenv("GITHUB_STEP_SUMMARY", summary)
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"report", "-dir", records, "-format", "md"}, &stdout, &stderr), stderr.String())
	md := stdout.String()
	t.Log("\n" + md)
	assert.Contains(t, md, "- **newly failing**: SC-BROKEN")
	assert.Contains(t, md, "- **fixed**: SC-FIXED")
	assert.Contains(t, md, "- **still failing**: SC-STILL")
	assert.Contains(t, md, "- **redefined**: SC-EDITED")
	assert.NotContains(t, md, "**flaky**", "a status that flipped between runs is newly failing or fixed: no run's attempts disagreed")
	assert.Contains(t, md, "| 4 | 2 | 2 | 0 | 0 | 0 | 50% (2 of 4) |")
	assert.Contains(t, md, "- SC-BROKEN C1: expected the reply contains \"hello\"")
	assert.NotContains(t, md, "<script>", "agent text cannot run as HTML in a summary")
	got, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Equal(t, md, string(got), "the step summary holds the markdown")

	stdout.Reset()
	require.Equal(t, 0, run([]string{"report", "-dir", records, "-format", "json"}, &stdout, &stderr), stderr.String())
	var doc struct {
		Version int            `json:"version"`
		Dir     string         `json:"dir"`
		Totals  map[string]any `json:"totals"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &doc))
	assert.Equal(t, 1, doc.Version)
	yamlTotals := readYAMLFile(t, filepath.Join(doc.Dir, "report.yaml"))["totals"].(map[string]any)
	for k, v := range yamlTotals {
		assert.EqualValues(t, v, doc.Totals[k], k)
	}

	page, err := os.ReadFile(filepath.Join(doc.Dir, "report.html"))
	require.NoError(t, err, "a test binary that links rooktest/page writes report.html beside report.yaml")
	assert.Contains(t, string(page), "hello &lt;script&gt;window.pwned=1&lt;/script&gt;")
	assert.False(t, strings.Contains(string(page), "<script>window.pwned"), "a hostile reply is text, never script")

	// The page goes out as it is rendered, never gathered in memory first (a 20,000-scenario
	// run's page is 21 MB): standard output gets it in pieces, and -o the same bytes.
	var pieces countingWriter
	require.Equal(t, 0, run([]string{"report", "-dir", records, "-format", "html"}, &pieces, &stderr), stderr.String())
	assert.Greater(t, pieces.writes, 1, "the page reached standard output in one write: it was rendered into memory first")
	out := filepath.Join(t.TempDir(), "page.html")
	require.Equal(t, 0, run([]string{"report", "-dir", records, "-format", "html", "-o", out}, &stdout, &stderr), stderr.String())
	written, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, pieces.String(), string(written))
	bad := filepath.Join(t.TempDir(), "report.pdf")
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"report", "-dir", records, "-format", "pdf", "-o", bad}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "-format=pdf: want md, json, yaml or html")
	assert.NoFileExists(t, bad)
}

// countingWriter keeps what is written to it and counts the writes.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}
