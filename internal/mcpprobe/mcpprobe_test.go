package mcpprobe

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/mcpprobe/mcptest"
	"github.com/rookgo/rookgo/internal/spec"
)

// TestMain makes the test binary an MCP server over stdio, built with the official Go SDK,
// when MCPPROBE_SERVE=1: the probes below start it as a real process.
func TestMain(m *testing.M) {
	switch os.Getenv("MCPPROBE_SERVE") {
	case "wide":
		serveWide()
	case "daemons":
		leaveDaemons()
	case "sleep":
		time.Sleep(5 * time.Minute) // a daemon the server leaves; the probe ends it
		os.Exit(0)
	}
	if os.Getenv("MCPPROBE_SERVE") != "" {
		if f := os.Getenv("MCPPROBE_STARTED"); f != "" {
			_ = os.WriteFile(f, []byte("started"), 0o644)
		}
		if err := mcptest.BankServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveWide is a stdio server that speaks just enough of the protocol to list its tools:
// MCPPROBE_TOOLS of them, in one page.
func serveWide() {
	n, _ := strconv.Atoi(os.Getenv("MCPPROBE_TOOLS"))
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	reply := func(id json.RawMessage, result string) {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
		_ = out.Flush()
	}
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Version string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil {
			continue
		}
		switch req.Method {
		case "initialize":
			reply(req.ID, `{"protocolVersion":"`+req.Params.Version+`","capabilities":{"tools":{}},"serverInfo":{"name":"wide","version":"1"}}`)
		case "tools/list":
			var b strings.Builder
			b.WriteString(`{"tools":[`)
			for i := range n {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `{"name":"tool_%d","inputSchema":{"type":"object"}}`, i)
			}
			b.WriteString(`]}`)
			reply(req.ID, b.String())
		default:
			if len(req.ID) > 0 {
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", req.ID)
				_ = out.Flush()
			}
		}
	}
	os.Exit(0)
}

// leaveDaemons is a stdio server that first starts two daemons that outlive it (linux).
var leaveDaemons = func() { os.Exit(2) }

// servers are a stdio server (this binary) and a streamable HTTP one on 127.0.0.1.
func servers(t *testing.T) (stdio, web spec.MCPServer, env []string, started, wrote string) {
	t.Helper()
	dir := t.TempDir()
	started, wrote = filepath.Join(dir, "started"), filepath.Join(dir, "wrote")
	env = append(os.Environ(), "MCPPROBE_STARTED="+started, "MCPPROBE_WROTE="+wrote)
	stdio = spec.MCPServer{Name: "ledger", Command: []string{os.Args[0]}, Env: map[string]string{"MCPPROBE_SERVE": "1"}, ReadOnly: []string{"note"}}
	web = spec.MCPServer{Name: "ledger-web", URL: mcptest.ServeHTTP(t)}
	return stdio, web, env, started, wrote
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func TestAProbeReadsARealServersAnswer(t *testing.T) {
	stdio, web, env, started, _ := servers(t)
	approved := []spec.MCPServer{stdio, web}
	for _, name := range []string{"ledger", "ledger-web"} {
		p := Call(ctx(t), approved, t.TempDir(), env, Request{Server: name, Tool: "get_balance", Arguments: map[string]any{"account": "ACC-1001"}})
		require.Empty(t, p.Error, name)
		assert.False(t, p.IsError, name)
		got, err := json.Marshal(p.Answer)
		require.NoError(t, err)
		assert.JSONEq(t, `{"account":"ACC-1001","balance":800}`, string(got), name)
	}
	_, err := os.Stat(started)
	assert.NoError(t, err, "the stdio server is this test binary, started as a real process")

	// A tool's own error is an answer, flagged.
	p := Call(ctx(t), approved, t.TempDir(), env, Request{Server: "ledger", Tool: "get_balance", Arguments: map[string]any{"account": "ACC-9"}})
	require.Empty(t, p.Error)
	assert.True(t, p.IsError)
	assert.Equal(t, "no such account", p.Answer)

	// A tool the profile vouches for is called though the server does not annotate it.
	p = Call(ctx(t), approved, t.TempDir(), env, Request{Server: "ledger", Tool: "note", Arguments: map[string]any{"account": "ACC-1001"}})
	require.Empty(t, p.Error)
	assert.Equal(t, "frozen pending review", p.Answer)
}

func TestAProbeNeverWritesNorStartsWhatIsNotApproved(t *testing.T) {
	stdio, web, env, started, wrote := servers(t)

	p := Call(ctx(t), []spec.MCPServer{web}, t.TempDir(), env, Request{Server: "ledger", Tool: "get_balance"})
	assert.Equal(t, `mcp server "ledger" is not approved in the profile's mcp: list (it lists ledger-web), so it was never started`, p.Error)
	_, err := os.Stat(started)
	assert.ErrorIs(t, err, os.ErrNotExist, "an unapproved server is refused before it starts")

	for _, srv := range []spec.MCPServer{stdio, web} {
		p = Call(ctx(t), []spec.MCPServer{srv}, t.TempDir(), env, Request{Server: srv.Name, Tool: "transfer", Arguments: map[string]any{"account": "ACC-1001"}})
		assert.Contains(t, p.Error, "tool transfer of mcp server "+srv.Name+" is not declared read-only", srv.Name)
		assert.Nil(t, p.Answer)
	}
	_, err = os.Stat(wrote)
	assert.ErrorIs(t, err, os.ErrNotExist, "a tool that may write is never called")

	p = Call(ctx(t), []spec.MCPServer{web}, t.TempDir(), env, Request{Server: "ledger-web", Tool: "get_ledger"})
	assert.Equal(t, `mcp server ledger-web has no tool "get_ledger" (it has: get_balance, note, transfer)`, p.Error)

	broken := spec.MCPServer{Name: "gone", Command: []string{filepath.Join(t.TempDir(), "no-such-server")}}
	p = Call(ctx(t), []spec.MCPServer{broken}, t.TempDir(), env, Request{Server: "gone", Tool: "x"})
	assert.Contains(t, p.Error, "start mcp server gone")
}

// A URL server that answers without end is cut off, and the probe says why; it never
// becomes an answer.
func TestAFloodingServerIsCutOff(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	flood := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat(" ", 1<<20))
		for i := 0; i < 64; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})}
	go func() { _ = flood.Serve(ln) }()
	t.Cleanup(func() { _ = flood.Close() })
	srv := spec.MCPServer{Name: "flood", URL: "http://" + ln.Addr().String()}
	p := Call(ctx(t), []spec.MCPServer{srv}, t.TempDir(), nil, Request{Server: "flood", Tool: "x"})
	require.NotEmpty(t, p.Error)
	assert.Contains(t, p.Error, "connect to mcp server flood")
	assert.Contains(t, p.Error, "the mcp server's response is larger than 4194304 bytes")
	assert.Nil(t, p.Answer)
}

// One page of tools is one message: a page of 150,000 tools is refused for its size before
// it is decoded, and one of 20,000 small ones for its count; the probe says which.
func TestOnePageOfToolsIsBounded(t *testing.T) {
	for tools, want := range map[string]string{"150000": "frame exceeded the configured maximum line length", "20000": "lists more than 10000 tools"} {
		srv := spec.MCPServer{Name: "wide", Command: []string{os.Args[0]}, Env: map[string]string{"MCPPROBE_SERVE": "wide", "MCPPROBE_TOOLS": tools}}
		p := Call(ctx(t), []spec.MCPServer{srv}, t.TempDir(), os.Environ(), Request{Server: "wide", Tool: "tool_149999"})
		assert.Contains(t, p.Error, want, tools)
		assert.Nil(t, p.Answer)
	}
	srv := spec.MCPServer{Name: "wide", Command: []string{os.Args[0]}, Env: map[string]string{"MCPPROBE_SERVE": "wide", "MCPPROBE_TOOLS": "3"}}
	p := Call(ctx(t), []spec.MCPServer{srv}, t.TempDir(), os.Environ(), Request{Server: "wide", Tool: "tool_7"})
	assert.Equal(t, `mcp server wide has no tool "tool_7" (it has: tool_0, tool_1, tool_2)`, p.Error, "the server itself speaks the protocol")
}
