package draft

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/rookgo/rookgo/internal/check"
)

// operation is one operation of a document that could be the agent's chat request.
type operation struct {
	method, path string
	op           *openapi3.Operation
	item         *openapi3.PathItem
	body         *openapi3.Schema // the JSON request body, if any
	msg          message
	res          *shape // the JSON response
	reply        string
	score        int
}

// message is where a request carries the message: a messages list of {role, content}, a
// string field of the body (path, one or two keys), or a query parameter.
type message struct {
	messages string   // the list's key
	field    []string // the body field's keys
	query    string   // the query parameter
}

func (m message) String() string {
	switch {
	case m.messages != "":
		return "its body sends " + m.messages + ": [{role, content}]"
	case m.query != "":
		return "its query parameter " + m.query + " carries the message"
	}
	return "its body's " + strings.Join(m.field, ".") + " carries the message"
}

// messageKeys are the names a message field goes by, and how strongly each reads as one.
var messageKeys = map[string]int{"message": 5, "prompt": 5, "input": 4, "query": 4, "question": 5, "text": 3,
	"content": 3, "msg": 4, "utterance": 4, "user_input": 5, "userinput": 5, "q": 2, "ask": 3, "chatinput": 5, "chat_input": 5}

// chatWords in a path, an operationId or a summary make it likelier the agent's request.
var chatWords = []string{"chat", "message", "convers", "complet", "ask", "talk", "assistant", "agent", "prompt", "reply", "answer"}

func fromOpenAPI(data []byte, swagger string, o Options) (*Draft, error) {
	doc, version, err := loadOpenAPI(data, swagger)
	if err != nil {
		return nil, err
	}
	ops := chatOperations(doc)
	if len(ops) == 0 {
		return nil, fmt.Errorf("no operation takes a message (a messages list, or a field like message, prompt, input or query) and answers JSON with a reply in it")
	}
	op, err := pickOperation(ops, o.Operation)
	if err != nil {
		return nil, err
	}
	d := &Draft{Kind: "OpenAPI " + version + " document", Reply: op.reply}
	d.Chose = op.method + " " + op.path
	if op.op.OperationID != "" {
		d.Chose += " (operation " + op.op.OperationID + ")"
	}
	why := fmt.Sprintf("chose %s: %s, and its response has the reply at %s", d.Chose, op.msg, op.reply)
	if others := othersOf(ops, op); others != "" {
		why += "; also possible: " + others + " (--operation picks another)"
	}
	d.Notes = append(d.Notes, why)
	target, err := serverURL(doc, op, o.Server)
	if err != nil {
		return nil, err
	}
	b := &builder{agent: o.Agent, d: d}
	u, err := b.params(op, target)
	if err != nil {
		return nil, err
	}
	headers := b.security(doc, op)
	target = b.withQuery(u)
	body := ""
	if op.body != nil {
		if body, err = b.body(op); err != nil {
			return nil, err
		}
		headers = append([][2]string{{"Content-Type", "application/json"}}, headers...)
	}
	headers = append([][2]string{{"Accept", "application/json"}}, headers...)
	d.Curl = curlLine(op.method, target, headers, body)
	b.extras(op)
	return d, nil
}

// loadOpenAPI reads an OpenAPI 3 document, or, when swagger names its version, a Swagger 2
// one converted to 3. Its $refs are resolved inside it: a document never makes the loader
// fetch anything.
func loadOpenAPI(data []byte, swagger string) (*openapi3.T, string, error) {
	if swagger != "" {
		// kin's Swagger types read JSON only: YAML goes through a generic value first.
		var v any
		err := decodeJSONOrYAML(data, &v)
		if err == nil {
			data, err = json.Marshal(v)
		}
		var d2 openapi2.T
		if err == nil {
			err = json.Unmarshal(data, &d2)
		}
		if err != nil {
			return nil, "", fmt.Errorf("read the Swagger %s document: %w", swagger, err)
		}
		doc, err := openapi2conv.ToV3(&d2)
		if err != nil {
			return nil, "", fmt.Errorf("convert the Swagger %s document to OpenAPI 3: %w", swagger, err)
		}
		return doc, "2 (Swagger " + swagger + ")", nil
	}
	loader := openapi3.NewLoader()
	loader.Context = context.Background()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, "", fmt.Errorf("read the OpenAPI document: %w", err)
	}
	if doc.Paths == nil {
		return nil, "", fmt.Errorf("the OpenAPI document has no paths")
	}
	return doc, doc.OpenAPI, nil
}

// chatOperations are the document's operations that take a message and answer JSON with
// a reply, best first.
func chatOperations(doc *openapi3.T) []*operation {
	var ops []*operation
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			if method != "POST" && method != "GET" && method != "PUT" {
				continue
			}
			c := &operation{method: method, path: path, op: op, item: item}
			if c.read() {
				ops = append(ops, c)
			}
		}
	}
	sort.SliceStable(ops, func(i, j int) bool {
		if ops[i].score != ops[j].score {
			return ops[i].score > ops[j].score
		}
		return ops[i].method+ops[i].path < ops[j].method+ops[j].path
	})
	return ops
}

// read finds where the operation carries the message and where its response has the
// reply, and scores it; false when it lacks either.
func (c *operation) read() bool {
	if c.op.RequestBody != nil && c.op.RequestBody.Value != nil {
		if mt := jsonContent(c.op.RequestBody.Value.Content); mt != nil && mt.Schema != nil {
			c.body = merged(mt.Schema.Value, 0)
		}
	}
	score := 0
	switch {
	case c.body != nil:
		c.msg, score = bodyMessage(c.body)
	default:
		c.msg, score = queryMessage(c.op.Parameters, c.item.Parameters)
	}
	if score == 0 {
		return false
	}
	res := successResponse(c.op)
	if res == nil {
		return false
	}
	c.res = schemaShape(res, 0)
	var ok bool
	if c.reply, ok = c.res.reply(); !ok {
		return false
	}
	words := strings.ToLower(c.path + " " + c.op.OperationID + " " + c.op.Summary)
	for _, w := range chatWords {
		if strings.Contains(words, w) {
			score += 2
			break
		}
	}
	if c.op.Deprecated {
		score -= 3
	}
	if c.method == "GET" {
		score--
	}
	c.score = score
	return true
}

// bodyMessage finds the message in a request body: a messages list of objects with role
// and content (scored 7), or a string field under messageKeys, one or two keys deep.
func bodyMessage(s *openapi3.Schema) (message, int) {
	best, score := message{}, 0
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := merged(s.Properties[name].Value, 0)
		if p == nil {
			continue
		}
		if strings.EqualFold(name, "messages") && p.Type.Is("array") && p.Items != nil {
			if it := merged(p.Items.Value, 0); it != nil && it.Properties["content"] != nil {
				return message{messages: name}, 7
			}
		}
		n := messageKeys[strings.ToLower(name)]
		if n > 0 && p.Type.Permits("string") && !p.Type.Is("array") && n+required(s, name) > score {
			best, score = message{field: []string{name}}, n+required(s, name)
			continue
		}
		if p.Type.Is("object") && n > 0 {
			for _, inner := range slices.Sorted(maps.Keys(p.Properties)) {
				q := merged(p.Properties[inner].Value, 0)
				if k := messageKeys[strings.ToLower(inner)]; k > 0 && q != nil && q.Type.Is("string") && n+k-3 > score {
					best, score = message{field: []string{name, inner}}, n+k-3
				}
			}
		}
	}
	return best, score
}

func required(s *openapi3.Schema, name string) int {
	for _, r := range s.Required {
		if r == name {
			return 1
		}
	}
	return 0
}

// queryMessage finds the message in a query parameter under messageKeys.
func queryMessage(lists ...openapi3.Parameters) (message, int) {
	best, score := message{}, 0
	for _, ps := range lists {
		for _, p := range ps {
			if p.Value == nil || p.Value.In != "query" {
				continue
			}
			if n := messageKeys[strings.ToLower(p.Value.Name)]; n > score {
				best, score = message{query: p.Value.Name}, n
			}
		}
	}
	return best, score
}

// successResponse is the schema of the operation's JSON answer: its 200, 201, another
// 2xx, or its default.
func successResponse(op *openapi3.Operation) *openapi3.Schema {
	if op.Responses == nil {
		return nil
	}
	codes := []string{"200", "201"}
	for code := range op.Responses.Map() {
		if strings.HasPrefix(code, "2") && code != "200" && code != "201" {
			codes = append(codes, code)
		}
	}
	codes = append(codes, "2XX", "default")
	for _, code := range codes {
		r := op.Responses.Value(code)
		if r == nil || r.Value == nil {
			continue
		}
		if mt := jsonContent(r.Value.Content); mt != nil && mt.Schema != nil {
			return mt.Schema.Value
		}
	}
	return nil
}

// jsonContent is the JSON media type of a content map: application/json, another +json,
// or */*.
func jsonContent(c openapi3.Content) *openapi3.MediaType {
	if mt := c.Get("application/json"); mt != nil {
		return mt
	}
	for _, name := range slices.Sorted(maps.Keys(c)) {
		base, _, _ := strings.Cut(name, ";")
		if strings.HasSuffix(base, "+json") || base == "*/*" || base == "application/json" {
			return c[name]
		}
	}
	return nil
}

func pickOperation(ops []*operation, want string) (*operation, error) {
	if want == "" {
		return ops[0], nil
	}
	for _, op := range ops {
		if op.op.OperationID == want || strings.EqualFold(op.method+" "+op.path, want) {
			return op, nil
		}
	}
	return nil, fmt.Errorf("--operation %q is none of the operations that take a message: %s", want, othersOf(ops, nil))
}

// othersOf lists the candidates other than chosen, at most five.
// escaped is a text from a source as it may be printed: as it is when every rune of it is
// graphic, else quoted with Go's escapes, so that a terminal's escape sequence in a path
// reaches the terminal as \x1b.
func escaped(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) || r == utf8.RuneError {
			return strconv.Quote(s)
		}
	}
	return s
}

func othersOf(ops []*operation, chosen *operation) string {
	var names []string
	for _, op := range ops {
		if op != chosen {
			names = append(names, op.method+" "+escaped(op.path)) // a document's text
		}
	}
	return check.Some(names, 5)
}

// serverURL is the operation's URL: on --server when given, else on the document's first
// server (the operation's or the path's own first), its variables at their defaults.
func serverURL(doc *openapi3.T, op *operation, server string) (string, error) {
	base := server
	if base == "" {
		servers := doc.Servers
		if len(op.item.Servers) > 0 {
			servers = op.item.Servers
		}
		if op.op.Servers != nil && len(*op.op.Servers) > 0 {
			servers = *op.op.Servers
		}
		if len(servers) == 0 || servers[0] == nil {
			return "", fmt.Errorf("the document names no server: give the agent's base URL with --server")
		}
		base = servers[0].URL
		for name, v := range servers[0].Variables {
			base = strings.ReplaceAll(base, "{"+name+"}", v.Default)
		}
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("server %q is not an http:// or https:// URL with a host: give the agent's base URL with --server", base)
	}
	return strings.TrimRight(base, "/") + op.path, nil
}

// exampleOf is a value the document gives for a schema: its example, its first 3.1
// example, its default or its first enum value.
func exampleOf(s *openapi3.Schema) (any, bool) {
	switch {
	case s == nil:
		return nil, false
	case s.Example != nil:
		return s.Example, true
	case len(s.Examples) > 0:
		return s.Examples[0], true
	case s.Default != nil:
		return s.Default, true
	case len(s.Enum) > 0:
		return s.Enum[0], true
	}
	return nil, false
}

// compact writes a value for a note.
func compact(v any) string {
	s, err := jsonBody(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return s
}
