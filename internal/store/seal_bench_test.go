package store

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSealedWrites writes an attempt's records as a run does (hooks.json six times,
// response.json, traces.json and verdict.yaml), once in a run's folder, where each write is
// sealed in the manifest, and once outside one, where none is, alternating, and reports
// the ratio of the two: what the manifest costs a record write.
func BenchmarkSealedWrites(b *testing.B) {
	r := NewRedactor(nil)
	hooks := map[string]any{"version": 1, "phases": map[string]any{"execute": map[string]any{"ran": true, "ok": true, "stdout": string(make([]byte, 2048))}}}
	attempt := func(dir string) {
		for range 6 {
			if err := r.JSON(filepath.Join(dir, "hooks.json"), hooks); err != nil {
				b.Fatal(err)
			}
		}
		for _, f := range []string{"response.json", "evidence/traces.json", "verdict.yaml"} {
			if err := r.JSON(filepath.Join(dir, f), hooks); err != nil {
				b.Fatal(err)
			}
		}
	}
	root := b.TempDir()
	if err := WriteFile(filepath.Join(root, "sealed", "run.yaml"), []byte("id: r\n")); err != nil {
		b.Fatal(err)
	}
	var sealed, plain time.Duration
	for i := 0; b.Loop(); i++ {
		s := filepath.Join(root, "sealed", "scenarios", fmt.Sprintf("SC-%d", i))
		p := filepath.Join(root, "plain", "scenarios", fmt.Sprintf("SC-%d", i))
		start := time.Now()
		attempt(s)
		sealed += time.Since(start)
		start = time.Now()
		attempt(p)
		plain += time.Since(start)
	}
	b.ReportMetric(float64(sealed)/float64(plain), "sealed/plain")
	b.ReportMetric(float64(sealed.Microseconds())/float64(b.N), "sealed-us/attempt")
	b.ReportMetric(float64(plain.Microseconds())/float64(b.N), "plain-us/attempt")
}
