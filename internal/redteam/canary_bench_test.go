package redteam

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/rookgo/rookgo/internal/record"
)

// evidenceOf is n bytes of what agents emit: prose, JSON, base64 blobs, hex digests, URLs
// with percent-encoding and HTML entities, none of it the canary.
func evidenceOf(n int) string {
	chunk := `The order ORD-7 shipped on Friday; {"id": "c0ffee", "digest": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"} ` +
		"blob=" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("not the secret, only padding ", 4))) +
		" see https://example.test/a?q=rook%20canary%20ROOK-CANARY-ffff &amp; &#82;&#79; more text.\n"
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(chunk)
	}
	return b.String()[:n]
}

// The canary search is linear in the evidence: 4 MiB takes about twice what 2 MiB does,
// measured side by side in one run (ratio), allocations reported.
func BenchmarkCanarySearch(b *testing.B) {
	const token = "ROOK-CANARY-0123456789abcdef"
	small, large := evidenceOf(2<<20), evidenceOf(4<<20)
	search := func(text string) time.Duration {
		start := time.Now()
		// The whole search: folded, decoded, and cut in parts.
		if r := canary(token, []place{{"turn 1 reply", text, "said"}}, true, ""); r.Outcome == record.SignalMatched {
			b.Fatal("found a canary that is not there")
		}
		return time.Since(start)
	}
	b.ReportAllocs()
	var s, l time.Duration
	for b.Loop() {
		s += search(small)
		l += search(large)
	}
	b.ReportMetric(float64(s.Milliseconds())/float64(b.N), "ms/2MiB")
	b.ReportMetric(float64(l.Milliseconds())/float64(b.N), "ms/4MiB")
	b.ReportMetric(float64(l)/float64(s), "ratio")
}
