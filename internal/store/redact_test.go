package store

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Raw text is redacted however a hook escaped the secret inside a JSON string; decoded
// values are redacted as strings and keys, and a number only when it is the secret.
func TestRedactDecodedValuesAndEveryEscaping(t *testing.T) {
	r := NewRedactor(map[string]string{"TOKEN": "sk/café-9f8e7d", "PIN": "4821"})
	for _, tc := range []struct{ raw, want string }{
		{`{"k": "sk\/caf\u00e9-9f8e7d"}`, `{"k": "[redacted:TOKEN]"}`},
		{`{"k": "\u0073k/café-9f8e7d and more"}`, `{"k": "[redacted:TOKEN] and more"}`},
		{`{"n": 14821, "s": "pin 4821"}`, `{"n": 1[redacted:PIN], "s": "pin [redacted:PIN]"}`},
		{`not json: sk/café-9f8e7d`, `not json: [redacted:TOKEN]`},
		{`{"unterminated": "sk/café-9f8e7d`, `{"unterminated": "[redacted:TOKEN]`},
	} {
		assert.Equal(t, tc.want, r.Text(tc.raw), tc.raw)
	}

	var v any
	dec := json.NewDecoder(strings.NewReader(`{"id": 14821, "pin": 4821, "ok": true, "sk/café-9f8e7d": ["x sk/café-9f8e7d"]}`))
	dec.UseNumber()
	assert.NoError(t, dec.Decode(&v))
	assert.Equal(t, map[string]any{"id": json.Number("14821"), "pin": "[redacted:PIN]", "ok": true,
		"[redacted:TOKEN]": []any{"x [redacted:TOKEN]"}}, r.Value(v))
}
