// Package mcpprobe calls one read-only tool of an MCP server a profile approves, with the
// official Go SDK, and returns its answer as evidence for an mcp_probe criterion. A server
// the profile does not list is never started or reached; a tool that is neither annotated
// read-only (readOnlyHint) nor vouched for in the profile's read_only list is never called.
package mcpprobe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// Limits on what a server may send back.
const (
	// MaxAnswer bounds a tool's answer, as JSON.
	MaxAnswer = 1 << 20
	// maxTools bounds how many tools are listed looking for the one named.
	maxTools = 10000
	// maxStderr bounds what of a command server's stderr is kept for an error.
	maxStderr = 4 << 10
	// maxFrame bounds each message a server sends: a line a command server prints, an HTTP
	// response a URL server sends. A page of tools is one message: one that lists more
	// tools than a probe looks through is refused before it is decoded whole.
	maxFrame = 4 << 20
)

// Request is one probe: the server, by name, from the profile's approved list; the tool
// and its arguments.
type Request struct {
	Server    string
	Tool      string
	Arguments map[string]any
}

// Call runs a probe against the servers a profile approves. dir is where a command server
// starts, env its environment (the profile's env is added). Every way it can fail is in the
// returned record's Error; Call never starts a server that is not in approved.
func Call(ctx context.Context, approved []spec.MCPServer, dir string, env []string, req Request) record.Probe {
	start := time.Now()
	p := record.Probe{Server: req.Server, Tool: req.Tool, Arguments: req.Arguments}
	if p.Arguments == nil {
		p.Arguments = map[string]any{}
	}
	i := slices.IndexFunc(approved, func(s spec.MCPServer) bool { return s.Name == req.Server })
	if i < 0 {
		names := make([]string, len(approved))
		for j, s := range approved {
			names[j] = s.Name
		}
		p.Error = fmt.Sprintf("mcp server %q is not approved in the profile's mcp: list (%s), so it was never started", req.Server, listOrNone(names))
		return p
	}
	err := call(ctx, approved[i], dir, env, &p)
	if err != nil {
		p.Error = err.Error()
	}
	p.DurationMs = time.Since(start).Milliseconds()
	return p
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "it lists none"
	}
	return "it lists " + strings.Join(names, ", ")
}

// call connects, finds the tool, checks it is read-only, and calls it.
func call(ctx context.Context, srv spec.MCPServer, dir string, env []string, p *record.Probe) error {
	var stderr bytes.Buffer
	t, stop, err := transport(ctx, srv, dir, env, &stderr)
	if err != nil {
		return fmt.Errorf("start mcp server %s: %w", srv.Name, err)
	}
	defer func() { p.LeftRunning = stop() }()
	client := mcp.NewClient(&mcp.Implementation{Name: "rookgo-mcp-probe", Version: "1"}, nil)
	cs, err := client.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("connect to mcp server %s: %w%s", srv.Name, err, stderrNote(&stderr))
	}
	defer func() { _ = cs.Close() }() // the answer is in hand; closing ends the server
	tool, err := findTool(ctx, cs, srv.Name, p.Tool)
	if err != nil {
		return err
	}
	readOnly := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
	if !readOnly && !slices.Contains(srv.ReadOnly, p.Tool) {
		return fmt.Errorf("tool %s of mcp server %s is not declared read-only (no readOnlyHint, and not in the profile's read_only list), so it was not called: a probe must not change what it checks", p.Tool, srv.Name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: p.Tool, Arguments: p.Arguments})
	if err != nil {
		return fmt.Errorf("call tool %s of mcp server %s: %w%s", p.Tool, srv.Name, err, stderrNote(&stderr))
	}
	p.IsError = res.IsError
	p.Answer, err = answer(res)
	return err
}

// transport is how the server is reached: a URL over streamable HTTP, or a command over
// stdio, started as hooks are (startServer) and killed with the probe's context. stop ends
// a command server and names what it left running.
func transport(ctx context.Context, srv spec.MCPServer, dir string, env []string, stderr *bytes.Buffer) (mcp.Transport, func() []string, error) {
	if srv.URL != "" {
		client := &http.Client{Transport: bounded{http.DefaultTransport}}
		return &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: client, MaxRetries: -1, DisableStandaloneSSE: true},
			func() []string { return nil }, nil
	}
	env = append([]string(nil), env...)
	for k, v := range srv.Env {
		env = append(env, k+"="+v)
	}
	s, err := startServer(ctx, srv.Command, dir, env, &limited{buf: stderr, left: maxStderr})
	if err != nil {
		return nil, nil, err
	}
	return &mcp.IOTransport{Reader: s.stdout, Writer: s.stdin, MaxLineLength: maxFrame}, s.stop, nil
}

// findTool lists the server's tools, page by page, for the one named.
func findTool(ctx context.Context, cs *mcp.ClientSession, server, name string) (*mcp.Tool, error) {
	var names []string
	cursor := ""
	for len(names) < maxTools {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("list the tools of mcp server %s: %w", server, err)
		}
		if len(names)+len(res.Tools) > maxTools {
			return nil, fmt.Errorf("mcp server %s lists more than %d tools; a probe looks through no more", server, maxTools)
		}
		for _, t := range res.Tools {
			if t.Name == name {
				return t, nil
			}
			names = append(names, t.Name)
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	return nil, fmt.Errorf("mcp server %s has no tool %q (it has: %s)", server, name, check.Some(names, 20))
}

// answer is the result a path is read from: the structured content, else the text
// content decoded as JSON when it is JSON, else the text; bounded by MaxAnswer. A tool's
// error is said in its text, so an error answer is its text.
func answer(res *mcp.CallToolResult) (any, error) {
	if res.StructuredContent != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("read the tool's structured answer: %w", err)
		}
		if len(b) > MaxAnswer {
			return nil, fmt.Errorf("the tool's answer is larger than %d bytes", MaxAnswer)
		}
		return check.DecodeJSON(string(b))
	}
	var texts []string
	size := 0
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			size += len(t.Text)
			texts = append(texts, t.Text)
		}
	}
	if size > MaxAnswer {
		return nil, fmt.Errorf("the tool's answer is larger than %d bytes", MaxAnswer)
	}
	text := strings.Join(texts, "\n")
	if d, err := check.DecodeJSON(text); err == nil {
		return d, nil
	}
	return text, nil
}

func stderrNote(b *bytes.Buffer) string {
	if s := strings.TrimSpace(b.String()); s != "" {
		return " (its stderr: " + s + ")"
	}
	return ""
}

// limited keeps the first left bytes written to it, and takes the rest without keeping it.
type limited struct {
	buf  *bytes.Buffer
	left int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.left > 0 {
		n := min(len(p), l.left)
		l.buf.Write(p[:n])
		l.left -= n
	}
	return len(p), nil
}

// bounded is an HTTP transport whose response bodies end in an error past maxFrame bytes.
type bounded struct{ next http.RoundTripper }

func (b bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	if err == nil {
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: maxFrame}
	}
	return resp, err
}

// cappedBody reads at most left bytes of a body, then fails.
type cappedBody struct {
	io.ReadCloser
	left int64
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("the mcp server's response is larger than %d bytes", maxFrame)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.ReadCloser.Read(p)
	c.left -= int64(n)
	return n, err
}
