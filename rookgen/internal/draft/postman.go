package draft

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/rookgo/rookgo/rookgen/internal/scaffold"
)

// postman is the part of a Postman collection (v2.0 or v2.1) a draft reads.
type postman struct {
	Info struct {
		Name   string `json:"name"`
		Schema string `json:"schema"`
	} `json:"info"`
	Item     []postmanItem `json:"item"`
	Variable []postmanKV   `json:"variable"`
	Auth     *postmanAuth  `json:"auth"`
}

type postmanItem struct {
	Name    string        `json:"name"`
	Item    []postmanItem `json:"item"` // a folder's
	Auth    *postmanAuth  `json:"auth"`
	Request *struct {
		Method string          `json:"method"`
		Header []postmanKV     `json:"header"`
		URL    json.RawMessage `json:"url"`
		Body   *struct {
			Mode string `json:"mode"`
			Raw  string `json:"raw"`
		} `json:"body"`
		Auth *postmanAuth `json:"auth"`
	} `json:"request"`
	Response []struct {
		Code int    `json:"code"`
		Body string `json:"body"`
	} `json:"response"`
}

type postmanKV struct {
	Key      string `json:"key"`
	Value    any    `json:"value"`
	Disabled bool   `json:"disabled"`
}

type postmanAuth struct {
	Type   string      `json:"type"`
	Bearer []postmanKV `json:"bearer"`
	APIKey []postmanKV `json:"apikey"`
}

func isPostman(top map[string]any) bool {
	info, ok := top["info"].(map[string]any)
	if !ok || top["item"] == nil {
		return false
	}
	schema, _ := info["schema"].(string)
	return strings.Contains(schema, "getpostman.com") || info["_postman_id"] != nil
}

// fromPostman drafts the request from a Postman collection: each request with a saved
// example response is read as a recorded exchange, its {{variables}} filled from the
// collection's, and its auth (its own, a folder's or the collection's) sent as a header.
func fromPostman(data []byte, o Options) (*Draft, error) {
	var c postman
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("read the Postman collection: %w", err)
	}
	if !strings.Contains(c.Info.Schema, "/v2.") {
		return nil, fmt.Errorf("a Postman collection of schema %q: export it as Collection v2.1", c.Info.Schema)
	}
	p := &postmanReader{vars: map[string]string{}, prefix: scaffold.EnvWord(o.Agent)}
	for _, v := range c.Variable {
		if s, ok := v.Value.(string); ok && !v.Disabled {
			p.vars[v.Key] = s
		}
	}
	p.walk(c.Item, c.Auth)
	d, err := fromExchanges("Postman collection "+p.clean(c.Info.Name), "requests with a saved 2xx example response", p.entries, o)
	if err != nil {
		return nil, err
	}
	var unset []string
	for _, v := range p.unset {
		if strings.Contains(d.Curl, v) {
			unset = append(unset, v)
			d.Vars = append(d.Vars, strings.TrimPrefix(v, "$"))
		}
	}
	if len(unset) > 0 {
		d.Notes = append(d.Notes, "variables without a value, read from the environment: "+strings.Join(unset, ", "))
	}
	return d, nil
}

type postmanReader struct {
	vars    map[string]string
	prefix  string
	entries []harEntry
	unset   []string
}

func (p *postmanReader) walk(items []postmanItem, auth *postmanAuth) {
	for _, it := range items {
		a := auth
		if it.Auth != nil {
			a = it.Auth
		}
		if len(it.Item) > 0 {
			p.walk(it.Item, a)
			continue
		}
		if it.Request == nil {
			continue
		}
		if it.Request.Auth != nil {
			a = it.Request.Auth
		}
		for _, r := range it.Response {
			if r.Code >= 200 && r.Code <= 299 && json.Valid([]byte(r.Body)) {
				p.entries = append(p.entries, p.entry(it, a, r.Code, r.Body))
				break
			}
		}
	}
}

// entry is a request and its saved response as a recorded exchange.
func (p *postmanReader) entry(it postmanItem, auth *postmanAuth, code int, body string) harEntry {
	var e harEntry
	r := it.Request
	e.Request.Method = strings.ToUpper(r.Method)
	e.Request.URL = p.fill(postmanURL(r.URL), "")
	for _, h := range r.Header {
		if s, ok := h.Value.(string); ok && !h.Disabled {
			e.Request.Headers = append(e.Request.Headers, harHeader{h.Key, p.fill(s, h.Key)})
		}
	}
	if h, ok := p.auth(auth); ok {
		e.Request.Headers = append(e.Request.Headers, h)
	}
	if r.Body != nil && r.Body.Mode == "raw" {
		e.Request.PostData = &struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
		}{"application/json", p.fillBody(r.Body.Raw)}
	}
	e.Response.Status = code
	e.Response.Content.Text = body
	return e
}

// auth is the header a bearer token or an API key in a header is sent as; a query API key
// and other kinds are not read.
func (p *postmanReader) auth(a *postmanAuth) (harHeader, bool) {
	get := func(kvs []postmanKV, key string) string {
		for _, kv := range kvs {
			if s, ok := kv.Value.(string); ok && kv.Key == key {
				return s
			}
		}
		return ""
	}
	switch {
	case a == nil:
	case a.Type == "bearer":
		return harHeader{"Authorization", "Bearer " + p.fill(get(a.Bearer, "token"), "TOKEN")}, true
	case a.Type == "apikey" && get(a.APIKey, "in") != "query":
		name := get(a.APIKey, "key")
		return harHeader{name, p.fill(get(a.APIKey, "value"), "API_KEY")}, name != ""
	}
	return harHeader{}, false
}

// postmanURL is a request's URL: a string, or an object's raw form, else the URL its
// protocol, host, path and enabled query parameters make.
func postmanURL(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var u struct {
		Raw      string      `json:"raw"`
		Protocol string      `json:"protocol"`
		Host     []string    `json:"host"`
		Path     []string    `json:"path"`
		Query    []postmanKV `json:"query"`
	}
	if json.Unmarshal(raw, &u) != nil {
		return ""
	}
	if u.Raw != "" {
		return u.Raw
	}
	out := strings.Join(u.Host, ".")
	if u.Protocol != "" {
		out = u.Protocol + "://" + out
	}
	if len(u.Path) > 0 {
		out += "/" + strings.Join(u.Path, "/")
	}
	sep := "?"
	for _, q := range u.Query {
		if v, ok := q.Value.(string); ok && !q.Disabled {
			out += sep + q.Key + "=" + v
			sep = "&"
		}
	}
	return out
}

var postmanVar = regexp.MustCompile(`\{\{([A-Za-z0-9_.-]+)\}\}`)

// fill puts the collection's variables into s. A variable without a value is read from the
// environment: a value that is only such a variable becomes $<AGENT>_<NAME> (named by as
// when set), which init --curl reads from the variable; elsewhere it stays a stand-in.
func (p *postmanReader) fill(s, as string) string {
	return postmanVar.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-2]
		if name == "goal" || name == "conversation" {
			return m // init's own placeholders
		}
		if v, ok := p.vars[name]; ok && v != "" {
			return v
		}
		if strings.TrimSpace(s) != m {
			return "<" + name + ">"
		}
		if as == "" {
			as = name
		}
		env := p.prefix + "_" + scaffold.EnvWord(as)
		for _, u := range p.unset {
			if u == "$"+env {
				return "$" + env
			}
		}
		p.unset = append(p.unset, "$"+env)
		return "$" + env
	})
}

// fillBody puts the variables into a JSON body value by value, so that a string that is
// only a variable is read from the environment; a body that is JSON only once filled
// ({"n": {{count}}}) is filled as text.
func (p *postmanReader) fillBody(raw string) string {
	var v any
	if json.Unmarshal([]byte(raw), &v) != nil {
		return p.fill(raw, "")
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			return p.fill(x, "")
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	out, err := jsonBody(walk(v))
	if err != nil {
		return raw
	}
	return out
}

// clean is a name from the collection as it may be shown: one line, bounded.
func (p *postmanReader) clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%q", s)
}
