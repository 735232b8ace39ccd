package draft

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// har is the part of a HAR export (HTTP Archive 1.2) a draft reads.
type har struct {
	Log struct {
		Creator struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"creator"`
		Entries []harEntry `json:"entries"`
	} `json:"log"`
}

type harEntry struct {
	Request struct {
		Method   string      `json:"method"`
		URL      string      `json:"url"`
		Headers  []harHeader `json:"headers"`
		PostData *struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"postData"`
	} `json:"request"`
	Response struct {
		Status  int `json:"status"`
		Content struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Encoding string `json:"encoding"`
		} `json:"content"`
	} `json:"response"`
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func isHAR(top map[string]any) bool {
	log, ok := top["log"].(map[string]any)
	return ok && log["entries"] != nil
}

// exchange is a recorded request that carries a message and got JSON with a reply back.
type exchange struct {
	key   string // METHOD /path
	e     *harEntry
	body  map[string]any // the request's JSON body, or nil
	query url.Values
	msg   message
	score int
	res   any // the response's JSON
	reply string
}

func fromHAR(data []byte, o Options) (*Draft, error) {
	var h har
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("read the HAR export: %w", err)
	}
	kind := "HAR export"
	if c := h.Log.Creator; c.Name != "" {
		kind += " (" + strings.TrimSpace(c.Name+" "+c.Version) + ")"
	}
	return fromExchanges(kind, "recorded requests", h.Log.Entries, o)
}

// fromExchanges drafts the request from requests sent and the responses they got: a HAR
// export's entries, or a Postman collection's requests and their saved examples (what
// names them).
func fromExchanges(kind, what string, entries []harEntry, o Options) (*Draft, error) {
	var all []*exchange
	for i := range entries {
		if x := readExchange(&entries[i]); x != nil {
			all = append(all, x)
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("none of its %d %s sends a message (a messages list, or a field like message, prompt, input or query, in a JSON body or the query) and got JSON with a reply back (a HAR saved without its responses' content has none to read)", len(entries), what)
	}
	group, err := pickGroup(all, o.Operation)
	if err != nil {
		return nil, err
	}
	d := &Draft{Kind: kind, Chose: group[0].key, Reply: group[0].reply}
	d.Notes = append(d.Notes, fmt.Sprintf("chose %s: %d of the %d %s; %s, and the response has the reply at %s",
		d.Chose, len(group), len(entries), what, group[0].msg, d.Reply))
	t := group[0]
	convKey, convPath := sessionFlow(group)
	if convKey == "" {
		convKey, convPath = sessionNamed(t)
	}
	for _, x := range group {
		if convKey != "" && x.body != nil && x.body[convKey] != nil {
			t = x // a turn that sent the conversation id back: the request of every later turn
			break
		}
	}
	if convKey != "" {
		d.Conversation = convPath
		d.Notes = append(d.Notes, fmt.Sprintf("conversation: the response's %s is sent back as %s on the next turn", convPath, convKey))
	}
	target := t.e.Request.URL
	if o.Server != "" {
		if target, err = withServer(o.Server, target); err != nil {
			return nil, err
		}
	}
	target, body, dropped, err := t.template(target, convKey)
	if err != nil {
		return nil, err
	}
	if dropped != "" {
		d.Notes = append(d.Notes, "left out "+dropped+": their values are stand-ins like <string>; add any the API requires to the hook's request")
	}
	if t.body != nil && t.body["stream"] == true {
		d.Notes = append(d.Notes, "stream: false, so that the reply comes as one JSON response")
	}
	var headers [][2]string
	for _, hd := range t.e.Request.Headers {
		if keepHeader(hd.Name) {
			headers = append(headers, [2]string{hd.Name, hd.Value})
		}
	}
	d.Curl = curlLine(t.e.Request.Method, target, headers, body)
	res := valueShape(t.res, 0)
	if path, ok := res.calls(); ok {
		d.Calls = path
		d.Notes = append(d.Notes, "calls: the tool calls at "+path)
	}
	if path, _ := res.usage(); path != "" {
		d.Usage = path
		d.Notes = append(d.Notes, "usage: the token counts at "+path)
	}
	return d, nil
}

// readExchange reads a recorded request that carries a message and got a JSON reply.
func readExchange(e *harEntry) *exchange {
	if e.Response.Status < 200 || e.Response.Status > 299 {
		return nil
	}
	u, err := url.Parse(e.Request.URL)
	if err != nil {
		return nil
	}
	x := &exchange{key: strings.ToUpper(e.Request.Method) + " " + u.Path, e: e, query: u.Query()}
	if pd := e.Request.PostData; pd != nil && pd.Text != "" {
		if json.Unmarshal([]byte(pd.Text), &x.body) != nil {
			return nil
		}
		x.msg, x.score = valueMessage(x.body)
	} else {
		for name := range x.query {
			if n := messageKeys[strings.ToLower(name)]; n > x.score {
				x.msg, x.score = message{query: name}, n
			}
		}
	}
	text := e.Response.Content.Text
	if e.Response.Content.Encoding == "base64" {
		raw, err := base64.StdEncoding.DecodeString(text)
		if err != nil {
			return nil
		}
		text = string(raw)
	}
	if x.score == 0 || json.Unmarshal([]byte(text), &x.res) != nil {
		return nil
	}
	var ok bool
	if x.reply, ok = valueShape(x.res, 0).reply(); !ok {
		return nil
	}
	return x
}

// valueMessage finds the message in a recorded JSON body: the last user entry of a
// messages list, or a string under messageKeys at most two keys deep.
func valueMessage(body map[string]any) (message, int) {
	best, score := message{}, 0
	for _, name := range slices.Sorted(maps.Keys(body)) {
		switch v := body[name].(type) {
		case []any:
			if strings.EqualFold(name, "messages") && len(v) > 0 {
				if last, ok := v[len(v)-1].(map[string]any); ok && last["content"] != nil {
					return message{messages: name}, 7
				}
			}
		case string:
			if n := messageKeys[strings.ToLower(name)]; n > score {
				best, score = message{field: []string{name}}, n
			}
		case map[string]any:
			n := messageKeys[strings.ToLower(name)]
			for _, inner := range slices.Sorted(maps.Keys(v)) {
				if _, ok := v[inner].(string); ok && n > 0 && messageKeys[strings.ToLower(inner)] > 0 && n+messageKeys[strings.ToLower(inner)]-3 > score {
					best, score = message{field: []string{name, inner}}, n+messageKeys[strings.ToLower(inner)]-3
				}
			}
		}
	}
	return best, score
}

// pickGroup is the recorded requests to one METHOD /path, the one --operation names or
// else the most often sent, best read first.
func pickGroup(all []*exchange, want string) ([]*exchange, error) {
	groups := map[string][]*exchange{}
	var order []string
	for _, x := range all {
		if groups[x.key] == nil {
			order = append(order, x.key)
		}
		groups[x.key] = append(groups[x.key], x)
	}
	if want != "" {
		for _, k := range order {
			if strings.EqualFold(k, want) || strings.EqualFold(strings.SplitN(k, " ", 2)[1], want) {
				return groups[k], nil
			}
		}
		shown := make([]string, len(order))
		for i, k := range order {
			shown[i] = escaped(k) // a recording's text
		}
		return nil, fmt.Errorf("--operation %q is none of the recorded requests that send a message: %s", want, strings.Join(shown, ", "))
	}
	best := order[0]
	for _, k := range order[1:] {
		if len(groups[k]) > len(groups[best]) || (len(groups[k]) == len(groups[best]) && groups[k][0].score > groups[best][0].score) {
			best = k
		}
	}
	return groups[best], nil
}

// sessionFlow finds the conversation id by what the recording shows: a request body field
// holding a string an earlier response of the same endpoint returned. It returns the field
// and the response's path, or "" when no turn sent one back.
func sessionFlow(group []*exchange) (key, path string) {
	for i, x := range group {
		for _, name := range slices.Sorted(maps.Keys(x.body)) {
			s, ok := x.body[name].(string)
			if !ok || s == "" || standIn.MatchString(s) || (len(x.msg.field) > 0 && x.msg.field[0] == name) {
				continue
			}
			for _, prev := range group[:i] {
				for _, l := range valueShape(prev.res, 0).leaves() {
					if l.s.kind == "string" && l.s.text == s && l.path != prev.reply {
						return name, l.path
					}
				}
			}
		}
	}
	return "", ""
}

// sessionNamed finds the conversation id by name where no turn shows it sent back: a body
// field under sessionNames, and a response that has one.
func sessionNamed(x *exchange) (key, path string) {
	path, ok := valueShape(x.res, 0).conversation()
	if !ok {
		return "", ""
	}
	for _, name := range slices.Sorted(maps.Keys(x.body)) {
		if sessionNames[strings.ToLower(name)] {
			return name, path
		}
	}
	return "", ""
}

// template is the recorded request with the message, and the conversation id at key, as
// placeholders: a messages list keeps its system entries and ends with the turn's message,
// stream is turned off, and a field whose value is only a stand-in (<string>, as generated
// examples have) is left out; dropped names those.
func (x *exchange) template(target, convKey string) (string, string, string, error) {
	if x.msg.query != "" {
		u, err := url.Parse(target)
		if err != nil {
			return "", "", "", fmt.Errorf("recorded URL %q: %w", target, err)
		}
		q := u.Query()
		q.Set(x.msg.query, goal)
		u.RawQuery = strings.ReplaceAll(q.Encode(), url.QueryEscape(goal), goal)
		target = u.String()
	}
	if x.body == nil {
		return target, "", "", nil
	}
	body := map[string]any{}
	var dropped []string
	for _, k := range slices.Sorted(maps.Keys(x.body)) {
		if v, ok := withoutStandIns(x.body[k]); ok {
			body[k] = v
		} else if (len(x.msg.field) == 0 || k != x.msg.field[0]) && k != x.msg.messages && k != convKey {
			dropped = append(dropped, k)
		}
	}
	if body["stream"] == true {
		body["stream"] = false
	}
	switch {
	case x.msg.messages != "":
		var kept []any
		for _, m := range x.body[x.msg.messages].([]any) {
			if mm, ok := m.(map[string]any); ok && mm["role"] == "system" {
				if c, ok := mm["content"].(string); ok && !standIn.MatchString(c) {
					kept = append(kept, mm)
				}
			}
		}
		body[x.msg.messages] = append(kept, map[string]any{"role": "user", "content": goal})
	case len(x.msg.field) == 1:
		body[x.msg.field[0]] = goal
	case len(x.msg.field) == 2:
		inner := map[string]any{}
		for k, v := range x.body[x.msg.field[0]].(map[string]any) {
			if v, ok := withoutStandIns(v); ok {
				inner[k] = v
			}
		}
		inner[x.msg.field[1]] = goal
		body[x.msg.field[0]] = inner
	}
	if convKey != "" {
		body[convKey] = conversation
	}
	b, err := jsonBody(body)
	return target, b, strings.Join(dropped, ", "), err
}

// standIn is a generated example's stand-in for a value: <string>, <integer>, <dateTime>.
var standIn = regexp.MustCompile(`^<[A-Za-z][A-Za-z0-9 _-]*>$`)

// withoutStandIns is v without what holds a stand-in: a list keeps its other items, and an
// object with a stand-in anywhere in it goes whole (a tool without its name is worse than
// none); false when nothing is left.
func withoutStandIns(v any) (any, bool) {
	if list, ok := v.([]any); ok {
		var out []any
		for _, e := range list {
			if !hasStandIn(e) {
				out = append(out, e)
			}
		}
		return out, len(out) > 0 || len(list) == 0
	}
	return v, !hasStandIn(v)
}

func hasStandIn(v any) bool {
	switch x := v.(type) {
	case string:
		return standIn.MatchString(x)
	case map[string]any:
		for _, e := range x {
			if hasStandIn(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasStandIn(e) {
				return true
			}
		}
	}
	return false
}

// keepHeader says whether a recorded request header goes into the hook's request: the
// ones a browser adds on its own (its identity, caching, fetch metadata, the connection)
// are left out; the content type, credentials and the application's own are kept.
func keepHeader(name string) bool {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, ":"), strings.HasPrefix(n, "sec-"), strings.HasPrefix(n, "proxy-"):
		return false
	}
	switch n {
	case "host", "connection", "content-length", "accept-encoding", "accept-language", "user-agent", "origin",
		"referer", "upgrade-insecure-requests", "cache-control", "pragma", "priority", "dnt", "te", "keep-alive",
		"if-none-match", "if-modified-since", "accept", "transfer-encoding":
		return false
	}
	return true
}
