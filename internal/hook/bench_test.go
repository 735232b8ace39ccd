package hook

import (
	"context"
	"os"
	"testing"
	"time"
)

// BenchmarkRun calls a hook that answers at once (sh printing one line), as the run calls
// every hook: the time of a call, the hook's start included, and what it allocates in this
// process.
// go test -run '^$' -bench Run -benchmem ./internal/hook
func BenchmarkRun(b *testing.B) {
	spec := Spec{Argv: []string{"sh", "-c", `echo '{"output": "hi"}'`}, Dir: b.TempDir(), Env: os.Environ(),
		Stdin: `{"goal": "hello"}`, Timeout: 10 * time.Second}
	b.ReportAllocs()
	for b.Loop() {
		res, err := Run(context.Background(), spec)
		if err != nil || len(res.Stdout) == 0 {
			b.Fatalf("the hook did not answer: %v", err)
		}
	}
}
