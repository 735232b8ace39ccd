package draft

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/rookgo/rookgo/internal/spec"
)

// The placeholders of init --curl: the turn's message, and the conversation id an earlier
// turn returned.
const (
	goal         = "{{goal}}"
	conversation = "{{conversation}}"
)

// builder writes the chosen operation's request and says what it filled in.
type builder struct {
	agent string
	d     *Draft
	query url.Values
}

// own is env, a variable the draft names itself for a credential, recorded as one init
// may read (Draft.Vars).
func (b *builder) own(env string) string {
	if !slices.Contains(b.d.Vars, env) {
		b.d.Vars = append(b.d.Vars, env)
	}
	return env
}

func (b *builder) note(format string, args ...any) {
	b.d.Notes = append(b.d.Notes, fmt.Sprintf(format, args...))
}

// merged is s with its allOf folded in, or for a oneOf or anyOf without its own type, the
// first choice that is an object (else the first).
func merged(s *openapi3.Schema, depth int) *openapi3.Schema {
	if s == nil || depth > maxDepth {
		return s
	}
	if len(s.AllOf) == 0 && (len(s.OneOf)+len(s.AnyOf) == 0 || s.Type != nil && !s.Type.IsEmpty() || len(s.Properties) > 0) {
		return s
	}
	m := *s
	m.Properties = openapi3.Schemas{}
	for k, v := range s.Properties {
		m.Properties[k] = v
	}
	m.Required = append([]string(nil), s.Required...)
	for _, part := range s.AllOf {
		if p := merged(part.Value, depth+1); p != nil {
			for k, v := range p.Properties {
				m.Properties[k] = v
			}
			m.Required = append(m.Required, p.Required...)
			if m.Type == nil || m.Type.IsEmpty() {
				m.Type = p.Type
			}
		}
	}
	if choices := append(append(openapi3.SchemaRefs{}, s.OneOf...), s.AnyOf...); len(choices) > 0 && len(m.Properties) == 0 {
		pick := choices[0].Value
		for _, c := range choices {
			if c.Value != nil && c.Value.Type.Is("object") {
				pick = c.Value
				break
			}
		}
		if p := merged(pick, depth+1); p != nil {
			return p
		}
	}
	if (m.Type == nil || m.Type.IsEmpty()) && len(m.Properties) > 0 {
		m.Type = &openapi3.Types{"object"}
	}
	return &m
}

// schemaShape is the shape of a schema.
func schemaShape(s *openapi3.Schema, depth int) *shape {
	s = merged(s, depth)
	if s == nil || depth > maxDepth {
		return &shape{}
	}
	out := &shape{}
	for _, t := range s.Type.Slice() {
		if t != "null" {
			out.kind = map[string]string{"integer": "number"}[t]
			if out.kind == "" {
				out.kind = t
			}
			break
		}
	}
	if out.kind == "" && len(s.Properties) > 0 {
		out.kind = "object"
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		out.props = append(out.props, prop{name, schemaShape(s.Properties[name].Value, depth+1)})
	}
	if s.Items != nil {
		out.items = schemaShape(s.Items.Value, depth+1)
	}
	return out
}

// body writes the request body: the message where the operation takes it, every other
// required field from the document's examples, stream off, and the conversation id where
// the request and the response both have one.
func (b *builder) body(op *operation) (string, error) {
	s := op.body
	body := map[string]any{}
	switch {
	case op.msg.messages != "":
		body[op.msg.messages] = []any{map[string]any{"role": "user", "content": goal}}
	case len(op.msg.field) == 1:
		body[op.msg.field[0]] = goal
	case len(op.msg.field) == 2:
		inner := map[string]any{op.msg.field[1]: goal}
		b.fill(op, inner, merged(s.Properties[op.msg.field[0]].Value, 0), op.msg.field[0]+".")
		body[op.msg.field[0]] = inner
	}
	b.fill(op, body, s, "")
	if p := s.Properties["stream"]; p != nil && p.Value != nil && p.Value.Type.Permits("boolean") {
		body["stream"] = false
		b.note("stream: false, so that the reply comes as one JSON response")
	}
	if path, ok := op.res.conversation(); ok {
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			if sessionNames[strings.ToLower(name)] {
				body[name] = conversation
				b.d.Conversation = path
				b.note("conversation: the response's %s is sent back as %s on the next turn", path, name)
				break
			}
		}
	}
	if b.d.Conversation == "" && op.msg.messages != "" {
		b.note("each turn sends its message alone in %s: the API keeps no conversation, so a turn does not see the earlier ones (multi_turn: false)", op.msg.messages)
	}
	return jsonBody(body)
}

// fill sets each required field of s not yet in body to a value the document gives.
func (b *builder) fill(op *operation, body map[string]any, s *openapi3.Schema, prefix string) {
	if s == nil {
		return
	}
	for _, name := range s.Required {
		if _, ok := body[name]; ok || s.Properties[name] == nil {
			continue
		}
		p := merged(s.Properties[name].Value, 0)
		v, from := valueFor(op, name, p)
		body[name] = v
		if spec.LooksSecret(name) {
			b.note("%s%s: a credential (required), read from a variable rather than written", prefix, name)
			continue
		}
		b.note("%s%s: %s (required)%s", prefix, name, compact(v), from)
	}
}

// valueFor is a value for a required field: the schema's example, default or first enum
// value; the request example's; a cURL code sample's (x-codeSamples); else a stand-in.
func valueFor(op *operation, name string, s *openapi3.Schema) (any, string) {
	if v, ok := exampleOf(s); ok {
		return v, ", from the document's schema"
	}
	for _, ex := range requestExamples(op) {
		if v, ok := ex[name]; ok {
			return v, ", from the document's example request"
		}
	}
	switch {
	case s != nil && s.Type.Is("boolean"):
		return false, ": the document gives no value; check it"
	case s != nil && (s.Type.Is("integer") || s.Type.Is("number")):
		return 0, ": the document gives no value; check it"
	case s != nil && s.Type.Is("array"):
		return []any{}, ": the document gives no value; check it"
	case s != nil && s.Type.Is("object"):
		return map[string]any{}, ": the document gives no value; check it"
	}
	return "<" + name + ">", ": the document gives no value; set it in the hook's request"
}

// requestExamples are the example bodies the document gives for the operation: its media
// type's example and examples, then the JSON bodies of its cURL code samples.
func requestExamples(op *operation) []map[string]any {
	var out []map[string]any
	add := func(v any) {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	if rb := op.op.RequestBody; rb != nil && rb.Value != nil {
		if mt := jsonContent(rb.Value.Content); mt != nil {
			add(mt.Example)
			for _, name := range slices.Sorted(maps.Keys(mt.Examples)) {
				if ex := mt.Examples[name]; ex != nil && ex.Value != nil {
					add(ex.Value.Value)
				}
			}
		}
	}
	for _, key := range []string{"x-codeSamples", "x-code-samples"} {
		samples, _ := op.op.Extensions[key].([]any)
		for _, s := range samples {
			m, _ := s.(map[string]any)
			src, _ := m["source"].(string)
			if !strings.Contains(src, "curl") {
				continue
			}
			start, end := strings.IndexByte(src, '{'), strings.LastIndexByte(src, '}')
			var v any
			if start >= 0 && end > start && json.Unmarshal([]byte(src[start:end+1]), &v) == nil {
				add(v)
			}
		}
	}
	return out
}

// params fills the operation's path and query parameters: the message's, and each
// required one from the document's examples.
func (b *builder) params(op *operation, target string) (*url.URL, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, fmt.Errorf("request URL %q: %w", target, err)
	}
	b.query = u.Query()
	for _, ps := range []openapi3.Parameters{op.item.Parameters, op.op.Parameters} {
		for _, p := range ps {
			if p.Value == nil {
				continue
			}
			v := p.Value
			if v.In == "query" && v.Name == op.msg.query {
				b.query.Set(v.Name, goal)
				continue
			}
			if !v.Required || (v.In != "path" && v.In != "query") {
				continue
			}
			var s *openapi3.Schema
			if v.Schema != nil {
				s = v.Schema.Value
			}
			val, ok := exampleOf(s)
			if v.Example != nil {
				val, ok = v.Example, true
			}
			text := fmt.Sprint(val)
			if !ok {
				text = "<" + v.Name + ">"
			}
			if v.In == "path" {
				u.Path = strings.ReplaceAll(u.Path, "{"+v.Name+"}", url.PathEscape(text))
			} else {
				b.query.Set(v.Name, text)
			}
			b.note("%s parameter %s: %s (required)", v.In, v.Name, text)
		}
	}
	return u, nil
}

// withQuery writes u with the builder's query, placeholders kept readable.
func (b *builder) withQuery(u *url.URL) string {
	u.RawQuery = ""
	out := u.String()
	if len(b.query) == 0 {
		return out
	}
	q := b.query.Encode()
	for _, p := range []string{goal, conversation} {
		q = strings.ReplaceAll(q, url.QueryEscape(p), p)
	}
	q = strings.ReplaceAll(q, "%24", "$")
	return out + "?" + q
}

// extras finds the tool calls and the usage in the response.
func (b *builder) extras(op *operation) {
	if path, ok := op.res.calls(); ok {
		b.d.Calls = path
		b.note("calls: the tool calls at %s", path)
	}
	path, unread := op.res.usage()
	switch {
	case path != "":
		b.d.Usage = path
		b.note("usage: the token counts at %s", path)
	case unread != "":
		b.note("usage: %s holds no count the hook reads (input_tokens, output_tokens, prompt_tokens, completion_tokens), so usage is left out", unread)
	}
}
