package draft

import (
	"regexp"
	"sort"
	"strings"
)

// shape is the form of a JSON value, read from a schema or from a value: the finders of
// the reply, the conversation id, the tool calls and the usage walk it.
type shape struct {
	kind  string // object, array, string, number, boolean; "" when unknown
	props []prop // an object's, in order
	items *shape // an array's
	text  string // a string value seen (a recorded response), else ""
}

type prop struct {
	name string
	s    *shape
}

// leaf is one value in a shape, with the JSON path the hooks follow to it.
type leaf struct {
	path  string
	names []string // the object keys on the way, outermost first
	s     *shape
}

// maxDepth bounds how deep a shape is walked: a document's schema or a recorded value may
// be nested without end.
const maxDepth = 8

// stepName is a key the hooks' paths can name (.name); another key cannot be reached.
var stepName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// leaves lists every value of s, depth first, arrays through their first item.
func (s *shape) leaves() []leaf {
	var out []leaf
	var walk func(s *shape, path string, names []string, depth int)
	walk = func(s *shape, path string, names []string, depth int) {
		if s == nil || depth > maxDepth {
			return
		}
		out = append(out, leaf{path: path, names: names, s: s})
		switch s.kind {
		case "object":
			for _, p := range s.props {
				if stepName.MatchString(p.name) {
					walk(p.s, path+"."+p.name, append(names[:len(names):len(names)], p.name), depth+1)
				}
			}
		case "array":
			walk(s.items, path+"[0]", names, depth+1)
		}
	}
	walk(s, "$", nil, 0)
	return out
}

func (l leaf) last() string {
	if len(l.names) == 0 {
		return ""
	}
	return strings.ToLower(l.names[len(l.names)-1])
}

func (l leaf) parent() string {
	if len(l.names) < 2 {
		return ""
	}
	return strings.ToLower(l.names[len(l.names)-2])
}

// replyNames score a string's key as the reply's; replyParents, the key above it.
var (
	replyNames = map[string]int{"reply": 10, "answer": 10, "output_text": 9, "response": 8, "output": 8,
		"generated_text": 8, "completion": 7, "text": 6, "content": 6, "message": 5, "result": 4, "speech": 4}
	replyParents = map[string]int{"message": 3, "reply": 3, "choices": 2, "output": 2, "response": 2, "answer": 2, "result": 1, "data": 1}
)

// reply finds the reply: the string whose key and place read most like one. A recorded
// value's string must hold text, and a longer one wins a tie.
func (s *shape) reply() (string, bool) {
	best, score, size := "", 0, -1
	for _, l := range s.leaves() {
		if l.s.kind != "string" {
			continue
		}
		n := replyNames[l.last()]
		if n == 0 {
			continue
		}
		n += replyParents[l.parent()] - max(0, len(l.names)-3)
		if n > score || (n == score && len(l.s.text) > size) {
			best, score, size = l.path, n, len(l.s.text)
		}
	}
	return best, best != ""
}

// sessionNames are the keys a conversation id goes by.
var sessionNames = map[string]bool{"conversation_id": true, "conversationid": true, "session_id": true,
	"sessionid": true, "thread_id": true, "threadid": true, "chat_id": true, "chatid": true,
	"conversation": true, "session": true, "thread": true, "context_id": true, "contextid": true}

// conversation finds the conversation id in a response: a string or number under one of
// sessionNames, at most two keys deep.
func (s *shape) conversation() (string, bool) {
	for _, l := range s.leaves() {
		if (l.s.kind == "string" || l.s.kind == "number" || l.s.kind == "") && sessionNames[l.last()] && len(l.names) <= 2 {
			if l.s.kind == "" && len(l.names) > 1 {
				continue
			}
			return l.path, true
		}
	}
	return "", false
}

// callNames are the keys a list of tool calls goes by.
var callNames = map[string]bool{"tool_calls": true, "toolcalls": true, "calls": true, "function_calls": true,
	"tool_uses": true, "tools_used": true, "actions": true}

// calls finds the tool calls: a list under one of callNames whose items name the tool in
// a way the hooks read (name, tool or function).
func (s *shape) calls() (string, bool) {
	for _, l := range s.leaves() {
		if l.s.kind != "array" || !callNames[l.last()] || l.s.items == nil {
			continue
		}
		if l.s.items.has("name") || l.s.items.has("tool") || l.s.items.has("function") || l.s.items.kind == "" {
			return l.path, true
		}
	}
	return "", false
}

// usageKeys are the token counts the hooks read from a usage object.
var usageKeys = []string{"input", "input_tokens", "prompt_tokens", "output", "output_tokens", "completion_tokens"}

// usage finds the token usage: an object with counts the hooks read. It also names an
// object called usage that has none of them, for the note.
func (s *shape) usage() (path, unread string) {
	for _, l := range s.leaves() {
		if l.s.kind != "object" {
			continue
		}
		for _, k := range usageKeys {
			if l.s.has(k) {
				return l.path, ""
			}
		}
		if l.last() == "usage" && unread == "" {
			unread = l.path
		}
	}
	return "", unread
}

func (s *shape) has(name string) bool {
	if s == nil {
		return false
	}
	for _, p := range s.props {
		if p.name == name {
			return true
		}
	}
	return false
}

// valueShape is the shape of a decoded JSON value (a recorded response).
func valueShape(v any, depth int) *shape {
	if depth > maxDepth {
		return &shape{}
	}
	switch x := v.(type) {
	case map[string]any:
		s := &shape{kind: "object"}
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			s.props = append(s.props, prop{k, valueShape(x[k], depth+1)})
		}
		return s
	case []any:
		s := &shape{kind: "array"}
		if len(x) > 0 {
			s.items = valueShape(x[0], depth+1)
		}
		return s
	case string:
		return &shape{kind: "string", text: x}
	case bool:
		return &shape{kind: "boolean"}
	case nil:
		return &shape{}
	default:
		return &shape{kind: "number"}
	}
}
