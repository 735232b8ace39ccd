package store

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Value redacts a decoded JSON value in place and returns it: every string and object
// key, and a number whose text is exactly a secret (which becomes the redaction marker).
// This is how what a hook printed is redacted: once, after it was parsed, so that a secret
// that is all digits or a JSON literal never changes what is parsed.
func (r *Redactor) Value(v any) any {
	if r == nil || r.none {
		return v
	}
	switch x := v.(type) {
	case string:
		return r.raw.Replace(x)
	case map[string]any:
		for k, vv := range x {
			red := r.raw.Replace(k)
			if red != k {
				delete(x, k)
			}
			x[red] = r.Value(vv)
		}
	case []any:
		for i := range x {
			x[i] = r.Value(x[i])
		}
	case json.Number:
		return r.number(string(x), v)
	case int64:
		return r.number(strconv.FormatInt(x, 10), v)
	case float64:
		return r.number(strconv.FormatFloat(x, 'g', -1, 64), v)
	}
	return v
}

// number is the redaction marker when text is exactly a secret, else v.
func (r *Redactor) number(text string, v any) any {
	if red := r.raw.Replace(text); red != text && strings.HasPrefix(red, "[redacted:") && strings.Count(red, "[redacted:") == 1 &&
		strings.HasSuffix(red, "]") {
		return red
	}
	return v
}

// Text redacts text a hook printed as it stands (raw stdout, stderr): every JSON string
// literal in it is decoded, redacted and written back when it held a secret, however the
// hook escaped it (\/, \u00e9, ...); the rest of the text gets the plain replacement.
// Only what is shown is changed: parse a hook's stdout before redacting it.
func (r *Redactor) Text(s string) string {
	if r == nil || r.none {
		return s
	}
	var b strings.Builder
	rest := s
	for {
		start := strings.IndexByte(rest, '"')
		if start < 0 {
			b.WriteString(r.raw.Replace(rest))
			return b.String()
		}
		end := literalEnd(rest, start)
		if end < 0 {
			b.WriteString(r.raw.Replace(rest))
			return b.String()
		}
		b.WriteString(r.raw.Replace(rest[:start]))
		b.WriteString(r.literal(rest[start : end+1]))
		rest = rest[end+1:]
	}
}

// literalEnd is the index of the quote that closes the string literal opened at start, or
// -1 when it is not closed.
func literalEnd(s string, start int) int {
	for i := start + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		case '\n':
			return -1 // not a JSON string: it cannot hold a raw newline
		}
	}
	return -1
}

// literal redacts one quoted string as JSON reads it, keeping its own escaping when it held
// no secret.
func (r *Redactor) literal(lit string) string {
	var decoded string
	if json.Unmarshal([]byte(lit), &decoded) != nil {
		return r.raw.Replace(lit)
	}
	red := r.raw.Replace(decoded)
	if red == decoded {
		return r.raw.Replace(lit) // a form the plain replacement knows (a Go-quoted one)
	}
	out, err := json.Marshal(red)
	if err != nil {
		return r.raw.Replace(lit)
	}
	return string(out)
}
