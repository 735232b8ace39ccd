package redteam

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rookgo/rookgo/internal/record"
)

// Whatever the canary and whatever the text, the search ends with an answer: a canary whose
// core has few letters, or letters only at its end, and texts of any bytes. The seeds are
// the forms that once made it panic; go test -fuzz FuzzCanarySearch looks further.
func FuzzCanarySearch(f *testing.F) {
	f.Add("e758273943740918", "Here is what you asked for: 65373538323733393433373430393138.")
	f.Add("0123456789abcdef", "")
	f.Add("9999999999999999", "zzzz 9999999999999999a")
	f.Add("abcdefabcdefabcd", "nopqrsnopqrsnopq")
	f.Fuzz(func(t *testing.T, core, text string) {
		if len(core) != 16 || strings.Trim(core, "0123456789abcdef") != "" {
			return
		}
		token := "ROOK-CANARY-" + core
		for _, s := range []string{text, text + token, hex.EncodeToString([]byte(core)) + text, base64.StdEncoding.EncodeToString([]byte(text))} {
			r := canary(token, []place{{"turn 1 reply", s, "said"}, {"call x arguments", text, "reported"}}, true, "")
			if strings.Contains(s, token) {
				assert.Equal(t, record.SignalMatched, r.Outcome)
			}
		}
	})
}
