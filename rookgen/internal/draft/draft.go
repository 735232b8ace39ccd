// Package draft reads what a team writes by hand from what it already has: how to reach
// an agent over HTTP (an OpenAPI document, a HAR export of a web chat, a Postman
// collection, or free text that a model reads), and scenarios of a feature, which a model
// drafts from its document (scenarios.go). Each request becomes the cURL command and
// response paths rookgen init --curl takes, so every source ends in the same hook; a model
// never writes a script, and a scenario it drafts is checked and written as a draft.
//
// A source is data, never instructions: what it says is only ever placed in a request's
// fields, and a model's answer is checked before it is used.
package draft

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Draft is what a source says of the agent's request, as init --curl takes it.
type Draft struct {
	// Kind names what was read: "OpenAPI 3.1.0 document", "HAR export", ...
	Kind string
	// Chose is the request chosen in it ("POST /api/chat (operation chat)").
	Chose string
	// Curl is the request as a cURL command, {{goal}} where the message goes and
	// {{conversation}} where a later turn sends the conversation id back. A credential in it
	// is a shell variable ($NAME) or, read from a recording, the value recorded, which the
	// --curl path moves into a variable.
	Curl string
	// Vars are the variables the draft named itself for credentials ($<AGENT>_TOKEN for a
	// security scheme, $<AGENT>_<NAME> for a collection's variable without a value): the
	// only ones init reads. A variable the source's own text names is not one of them.
	Vars []string
	// Reply, Conversation, Calls and Usage are JSON paths in the response ("" for none).
	Reply, Conversation, Calls, Usage string
	// Notes say why, and what to check or edit.
	Notes []string
}

// Options say how to read a source.
type Options struct {
	// Agent names the variables credentials are read from (<AGENT>_TOKEN).
	Agent string
	// Server, when set, replaces the document's server (or the recording's scheme, host and
	// port): where the agent runs for the tests.
	Server string
	// Operation picks the request when the source has several: an operationId, "METHOD
	// /path", or a request's name.
	Operation string
	// Model reads free text; nil when no model is configured.
	Model *Model
}

// Read drafts the request from a structured source: an OpenAPI 3 (or Swagger 2) document
// in JSON or YAML, a HAR export or a Postman collection. ok is false when data is none of
// them (free text, for a model); err is a source of a known kind that cannot be used.
func Read(name string, data []byte, o Options) (d *Draft, ok bool, err error) {
	var top map[string]any
	if err := decodeJSONOrYAML(data, &top); err != nil {
		if meant := meantStructured(data); meant != "" {
			return nil, true, fmt.Errorf("%s: read it as %s: %w", name, meant, withLine(data, err))
		}
		return nil, false, nil
	}
	if top == nil {
		return nil, false, nil
	}
	switch {
	case top["openapi"] != nil || top["swagger"] != nil:
		swagger, _ := top["swagger"].(string)
		d, err = fromOpenAPI(data, swagger, o)
	case isHAR(top):
		d, err = fromHAR(data, o)
	case isPostman(top):
		d, err = fromPostman(data, o)
	default:
		return nil, false, nil
	}
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", name, err)
	}
	return d, true, nil
}

// documentKey is the first key of an OpenAPI or Swagger document in YAML.
var documentKey = regexp.MustCompile(`(?m)^(openapi|swagger):`)

// meantStructured says what a source that did not decode was meant to be: JSON (it starts
// with { or [) or an OpenAPI document in YAML; "" for free text.
func meantStructured(data []byte) string {
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '['):
		return "JSON"
	case documentKey.Match(data):
		return "an OpenAPI document in YAML"
	}
	return ""
}

// withLine adds the line and column to a JSON syntax error (YAML's name their line).
func withLine(data []byte, err error) error {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		return err
	}
	start := bytes.IndexAny(data, "{[") // decodeJSONOrYAML decodes from the first
	if start < 0 {
		start = 0
	}
	at := min(max(int(syntax.Offset)-1, 0)+start, len(data)) // the offset is past the byte at fault
	line := bytes.Count(data[:at], []byte("\n")) + 1
	col := at - bytes.LastIndexByte(data[:at], '\n')
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// decodeJSONOrYAML reads JSON, or YAML (of which JSON is a subset, but slower and laxer).
func decodeJSONOrYAML(data []byte, v any) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		return json.Unmarshal(trimmed, v)
	}
	return yaml.Unmarshal(data, v)
}

// curlLine writes a request as a cURL command, each word quoted for a POSIX shell. A value
// that is a shell variable ($NAME) is written in double quotes, so that a shell reading the
// command expands it and init --curl reads it as the variable holding a credential.
func curlLine(method, target string, headers [][2]string, body string) string {
	var b strings.Builder
	b.WriteString("curl -X " + method + " " + quote(target))
	for _, h := range headers {
		b.WriteString(" -H " + quote(h[0]+": "+h[1]))
	}
	if body != "" {
		b.WriteString(" -d " + quote(body))
	}
	return b.String()
}

// quote quotes a word for a POSIX shell: in single quotes, or in double quotes when it
// holds a $NAME to expand and nothing else a double-quoted word would change.
func quote(s string) string {
	if strings.Contains(s, "$") && !strings.ContainsAny(s, "\"\\`'") {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// withServer puts the request on server: its scheme, host and port, and its path in front
// of the request's path when it has one.
func withServer(server, target string) (string, error) {
	s, err := url.Parse(server)
	if err != nil || (s.Scheme != "http" && s.Scheme != "https") || s.Host == "" {
		return "", fmt.Errorf("--server %q: want http:// or https:// and a host", server)
	}
	u, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("request URL %q: %w", target, err)
	}
	u.Scheme, u.Host, u.User = s.Scheme, s.Host, nil
	return u.String(), nil
}

// jsonBody writes a request body compactly, in the order built, without escaping <>&.
func jsonBody(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSpace(b.String()), nil
}
