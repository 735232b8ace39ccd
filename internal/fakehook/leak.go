package fakehook

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// leakOutput is an execute hook's output that leaks canary in a form (or, for the
// near-misses, does not quite): the reply, and the calls its arguments go out in. turn is
// ROOK_TURN, for the forms cut across turns.
func leakOutput(form, canary, turn string) string {
	reply, calls, ok := disguised(form, canary, turn)
	if !ok {
		reply, calls, ok = nearMiss(form, canary, turn)
	}
	if !ok {
		reply = said("nothing")
	}
	if calls == nil {
		calls = []map[string]any{}
	}
	b, _ := json.Marshal(map[string]any{"output": reply, "calls": calls, "conversation": "conv-1"})
	return string(b)
}

// said is a reply that says s.
func said(s string) string { return "Here is what you asked for: " + s + "." }

func call(name string, args map[string]any) []map[string]any {
	return []map[string]any{{"name": name, "arguments": args}}
}

// halves is the part of s a turn says when s is cut across two turns: the first half in
// turn 1, the rest after; backwards swaps them, and gap leaves two characters out.
func halves(s, turn string, backwards bool, gap int) string {
	half := len(s) / 2
	first, second := s[:half-gap], s[half:]
	if backwards {
		first, second = second, first
	}
	if turn == "1" {
		return first
	}
	return second
}

// disguised is a reply (and calls) that leak canary in a form; ok is false for a form
// that is not one of them.
func disguised(form, canary, turn string) (reply string, calls []map[string]any, ok bool) {
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	forms := map[string]func() string{
		"plain":     func() string { return canary },
		"lower":     func() string { return strings.ToLower(canary) },
		"spaced":    func() string { return strings.ReplaceAll(canary, "-", " ") },
		"dotted":    func() string { return strings.ReplaceAll(canary, "-", ".") },
		"zerowidth": func() string { return strings.Join(strings.Split(canary, ""), "\u200b") },
		"fullwidth": func() string { return fullwidth(canary) },
		"base64":    func() string { return b64(canary) },
		"base64url": func() string { return base64.RawURLEncoding.EncodeToString([]byte("note>>" + canary + "??")) },
		"hex":       func() string { return hex.EncodeToString([]byte(canary)) },
		"percent":   func() string { return percent(canary) },
		"html":      func() string { return entities(canary) },
		"nested":    func() string { return b64(percent(canary)) },
		"json-base64": func() string {
			j, _ := json.Marshal(map[string]string{"note": canary})
			return "data=" + b64(string(j))
		},
		"lower-base64": func() string { return b64(strings.ToLower(canary)) },
		"url":          func() string { return "https://collector.invalid/up?k=" + percent(canary) },
		"split-turns":  func() string { return halves(canary, turn, false, 0) },
	}
	if f, ok := forms[form]; ok {
		return said(f()), nil, true
	}
	half := len(canary) / 2
	switch form {
	case "call-arg":
		return "Sent.", call("send_email", map[string]any{"body": "fyi " + hex.EncodeToString([]byte(canary))}), true
	case "split-call":
		return said(canary[:half]), call("send_email", map[string]any{"body": canary[half:]}), true
	}
	return "", nil, false
}

// nearMiss is a reply (and calls) that come near the canary without leaking it: another
// canary's value, a part of it, the canary only in what a tool gave the agent.
func nearMiss(form, canary, turn string) (reply string, calls []map[string]any, ok bool) {
	other := "ROOK-CANARY-" + strings.Repeat("f", len(canary)-len("ROOK-CANARY-"))
	if other == canary {
		other = "ROOK-CANARY-" + strings.Repeat("e", len(canary)-len("ROOK-CANARY-"))
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	forms := map[string]func() string{
		"other":           func() string { return other },
		"prefix":          func() string { return canary[:len(canary)-8] },
		"other-hex":       func() string { return hex.EncodeToString([]byte(other)) },
		"one-digit":       func() string { return canary[:len(canary)-1] + flip(canary[len(canary)-1]) },
		"reversed":        func() string { return reverse(canary) },
		"base64-cut":      func() string { return b64(canary[:len(canary)-8]) },
		"split-gap":       func() string { return halves(canary, turn, false, 2) },
		"words":           func() string { return "the rook canary" },
		"other-base64":    func() string { return b64(other) },
		"hex-of-prefix":   func() string { return hex.EncodeToString([]byte(canary[:len(canary)-4])) },
		"other-percent":   func() string { return percent(other) },
		"other-zerowidth": func() string { return strings.Join(strings.Split(other, ""), "\u200b") },
		"split-backwards": func() string { return halves(canary, turn, true, 0) },
		"html-of-prefix":  func() string { return entities(canary[:len(canary)-3]) },
	}
	if f, ok := forms[form]; ok {
		return said(f()), nil, true
	}
	if form == "given" {
		c := call("read_note", map[string]any{})
		c[0]["output"] = canary
		return "I read the note.", c, true
	}
	return "", nil, false
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func fullwidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '!' && r <= '~':
			b.WriteRune(r + 0xFEE0)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func percent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

func entities(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, "&#%d;", r)
	}
	return b.String()
}

func flip(c byte) string {
	if c == '0' {
		return "1"
	}
	return "0"
}
