// Package mcptest is a small MCP server of a bank's ledger, built with the official Go
// SDK, for tests of mcp_probe: run over stdio by a re-executed test binary, or over
// streamable HTTP on 127.0.0.1.
package mcptest

import (
	"context"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type account struct {
	Account string `json:"account"`
}

type balance struct {
	Account string `json:"account"`
	Balance int    `json:"balance"`
}

// BankServer is a small MCP server of a bank's ledger: get_balance is annotated read-only,
// transfer is not (and records that it was called, which no probe may make it do), note
// answers text and is not annotated.
func BankServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bank", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "get_balance", Description: "an account's balance", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in account) (*mcp.CallToolResult, balance, error) {
			amounts := map[string]int{"ACC-1001": 800, "SAV-1001": 1200}
			b, ok := amounts[in.Account]
			if !ok {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such account"}}}, balance{}, nil
			}
			return nil, balance{Account: in.Account, Balance: b}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "transfer", Description: "moves money"},
		func(_ context.Context, _ *mcp.CallToolRequest, in account) (*mcp.CallToolResult, any, error) {
			if f := os.Getenv("MCPPROBE_WROTE"); f != "" {
				_ = os.WriteFile(f, []byte("transfer was called"), 0o644)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "moved"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "note", Description: "the account's note"},
		func(_ context.Context, _ *mcp.CallToolRequest, in account) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "frozen pending review"}}}, nil, nil
		})
	return s
}

// ServeHTTP serves BankServer over streamable HTTP on 127.0.0.1 until the test ends, and
// returns its URL.
func ServeHTTP(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return BankServer() }, nil)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}
