package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heavy are the packages a plain suite's test binary must not link: the trace receiver
// with the collector's pdata, the MCP probe with its SDK (and oauth2), the HTML page, and
// the model judge's HTTP client with net/http (for a suite no model judges).
var heavy = []string{
	"github.com/rookgo/rookgo/internal/otlp", "go.opentelemetry.io/collector/pdata",
	"github.com/rookgo/rookgo/internal/mcpprobe", "github.com/modelcontextprotocol/go-sdk", "golang.org/x/oauth2",
	"github.com/rookgo/rookgo/internal/page", "html/template",
	"github.com/rookgo/rookgo/internal/modeljudge/judgehttp", "net/http", "crypto/tls",
}

// testDeps are the packages the test binary of the package at pkg links.
func testDeps(t *testing.T, dir, pkg string) map[string]bool {
	t.Helper()
	cmd := exec.Command("go", "list", "-test", "-deps", pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), goflags)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	return deps
}

// linksUnder reports whether deps has prefix or a package under it.
func linksUnder(deps map[string]bool, prefix string) bool {
	for p := range deps {
		if p == prefix || strings.HasPrefix(p, prefix+"/") {
			return true
		}
	}
	return false
}

// A suite's test binary links only the capabilities its profile and scenarios use: a plain
// suite builds no trace receiver, MCP SDK or HTML page, and writes no report.html; asked for
// spans with -rook.traces it says how to link the receiver instead of running without it.
// A profile that receives spans, or scenarios that ask an MCP server, get theirs imported.
func TestASuiteLinksOnlyWhatItUses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\"}\n", os.Args[0]))
	helloScenario(t, dir, "SC-1")
	write(t, dir, "profiles/probed/traced.yaml", fmt.Sprintf("id: traced\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\"}\ntraces: otlp\n", os.Args[0]))
	write(t, dir, "scenarios/probed/SC-1.yaml", "id: SC-1\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: mcp_probe, params: {server: orders, tool: get_order, arguments: {id: 7}, path: $.status, equals: shipped}}\n")
	write(t, dir, "profiles/judged/judged.yaml", fmt.Sprintf("id: judged\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\"}\n", os.Args[0]))
	write(t, dir, "scenarios/judged/SC-1.yaml", "id: SC-1\ngoal: hello\nacceptance_criteria:\n  - {statement: The agent greets the user.}\n")
	write(t, dir, "scenarios/judged/SC-2.yaml", "id: SC-2\ngoal: hello\nredteam:\n  success_signals: [the agent seems to give in]\n")
	rookgen(t, dir)

	deps := testDeps(t, dir, "./scenarios/fake")
	assert.True(t, deps["github.com/rookgo/rookgo/rooktest"])
	for _, p := range heavy {
		assert.False(t, linksUnder(deps, p), "a plain suite does not link %s", p)
	}
	probed := testDeps(t, dir, "./scenarios/probed")
	for _, p := range []string{"github.com/rookgo/rookgo/rooktest/traces", "github.com/rookgo/rookgo/internal/otlp",
		"github.com/rookgo/rookgo/rooktest/mcp", "github.com/modelcontextprotocol/go-sdk/mcp"} {
		assert.True(t, probed[p], "a suite that uses it links %s", p)
	}
	assert.False(t, probed["github.com/rookgo/rookgo/internal/page"], "the page is linked by a file of the user's")
	assert.False(t, probed["github.com/rookgo/rookgo/internal/modeljudge/judgehttp"], "nothing of the probed suite is for a model to judge")
	judged := testDeps(t, dir, "./scenarios/judged")
	for _, p := range []string{"github.com/rookgo/rookgo/rooktest/judge", "github.com/rookgo/rookgo/internal/modeljudge/judgehttp", "net/http"} {
		assert.True(t, judged[p], "a suite a model judges links %s", p)
	}

	records := t.TempDir()
	res, err := goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/fake", "-rook.dir="+records)
	require.NoError(t, err, res.all)
	pages, _ := filepath.Glob(filepath.Join(records, "fake", "*", "report.html"))
	assert.Empty(t, pages, "without rooktest/page the run writes report.yaml alone")
	yamls, _ := filepath.Glob(filepath.Join(records, "fake", "*", "report.yaml"))
	assert.Len(t, yamls, 1)

	res, err = goTest(t, dir, []string{goflags}, "-count=1", "./scenarios/fake", "-rook.dir="+records, "-rook.traces")
	require.Error(t, err)
	assert.Contains(t, res.all, `-rook.traces asks for the agent's spans, but this test binary does not link the traces package: run go generate ./... (rookgen imports it when a profile of the suite sets traces: otlp), or import _ "github.com/rookgo/rookgo/rooktest/traces" in a file of this test package`)
	assert.False(t, strings.Contains(res.all, "--- PASS"), "nothing ran without the receiver it was asked for")
}
