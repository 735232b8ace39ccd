package spec

import (
	"net/url"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// MCPServer is an MCP server a profile approves for mcp_probe criteria: started as a
// command (stdio) or reached at a URL (streamable HTTP). A server the profile does not
// list is never started or reached.
type MCPServer struct {
	Name    string
	Command []string
	URL     string
	// Env is given to a command server beside the inherited environment.
	Env map[string]string
	// ReadOnly lists tools the profile vouches are read-only, for a server that does not
	// annotate them (readOnlyHint).
	ReadOnly []string
}

// redteamKey reads the profile keys red-team scenarios use: where the canary is planted,
// which tools write, and which MCP servers may be probed.
func (p *Profile) redteamKey(e *errs, f field) {
	switch f.key {
	case "canary":
		for _, g := range fields(e, f.v, "canary", []string{"fixtures"}, true) {
			p.CanaryFixtures = strList(e, g)
			for i, fx := range p.CanaryFixtures {
				if fx == "" || filepath.IsAbs(fx) || strings.HasPrefix(filepath.Clean(fx), "..") {
					e.at(g.v.Content[i], "canary fixture %q must be a path inside the attempt's ROOK_STATE_DIR", fx)
				}
			}
		}
	case "write_tools":
		p.WriteTools = strList(e, f)
		if p.WriteTools == nil {
			p.WriteTools = []string{}
		}
	case "mcp":
		p.MCP = parseMCP(e, f)
	}
}

// parseMCP reads the approved MCP servers: a list of {name, command | url, env}.
func parseMCP(e *errs, f field) []MCPServer {
	if f.v.Kind != yaml.SequenceNode {
		e.at(f.v, "mcp must be a list of servers, not %s", kindName(f.v))
		return nil
	}
	var out []MCPServer
	seen := map[string]bool{}
	for _, item := range f.v.Content {
		var s MCPServer
		for _, g := range fields(e, item, "mcp server", []string{"name", "command", "url", "env", "read_only"}, true) {
			switch g.key {
			case "name":
				s.Name = str(e, g)
			case "command":
				s.Command = strList(e, g)
			case "url":
				s.URL = str(e, g)
				if u, err := url.Parse(s.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
					e.at(g.v, "mcp server url %q must be an http or https URL", s.URL)
				}
			case "read_only":
				s.ReadOnly = strList(e, g)
			case "env":
				s.Env = map[string]string{}
				for _, kv := range fields(e, g.v, "mcp server env", nil, false) {
					s.Env[kv.key] = str(e, kv)
				}
			}
		}
		switch {
		case s.Name == "":
			e.at(item, "an mcp server needs a name")
		case seen[s.Name]:
			e.at(item, "mcp server %q is listed twice", s.Name)
		case (len(s.Command) == 0) == (s.URL == ""):
			e.at(item, "mcp server %q needs a command (stdio) or a url (streamable HTTP), one of them", s.Name)
		}
		seen[s.Name] = true
		out = append(out, s)
	}
	return out
}

// MCPServerNamed returns the approved server called name.
func (p *Profile) MCPServerNamed(name string) (MCPServer, bool) {
	for _, s := range p.MCP {
		if s.Name == name {
			return s, true
		}
	}
	return MCPServer{}, false
}
