// Package otlptest builds the test agent instrumented with the OpenTelemetry Go SDK
// (internal/otlp/testdata/testagent) for the tests that run it as a hook.
package otlptest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Agent builds the test agent into the test's temporary folder (go build's cache makes
// every build after the first a link) and returns its path.
func Agent(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(t.TempDir(), "testagent")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/testagent")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the test agent: %v\n%s", err, out)
	}
	return bin
}
