package testkit

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// OTelAgent builds the test agent instrumented with the OpenTelemetry Go SDK
// (internal/otlp/testdata/testagent), which the tests run as a hook, into the test's temporary folder (go build's cache makes
// every build after the first a link) and returns its path.
func OTelAgent(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(t.TempDir(), "testagent")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/testagent")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..", "otlp")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build the test agent: %v\n%s", err, out)
	}
	return bin
}
