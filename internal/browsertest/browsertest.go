// Package browsertest finds the Chromium the page tests open their pages in, and starts
// it headless for chromedp.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium is the path of an installed Chromium; without one the test is skipped, or
// fails when ROOK_REQUIRE_BROWSER is set (as CI sets it).
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("ROOK_REQUIRE_BROWSER") != "" {
		t.Fatal("ROOK_REQUIRE_BROWSER is set but no Chromium is on PATH")
	}
	t.Skip("no Chromium installed (apt-get install chromium; .ci/run does): the page is not opened in a browser")
	return ""
}

// Context is a headless Chromium's tab, ended with the test, that gives up after a minute.
func Context(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(Chromium(t)), chromedp.NoSandbox)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancel(); cancelTab(); cancelAlloc() })
	return ctx
}

// SaveScreenshot writes a screenshot as name under ROOK_SCREENSHOT_DIR (else a temporary
// folder) and logs where.
func SaveScreenshot(t testing.TB, name string, png []byte) {
	t.Helper()
	dir := os.Getenv("ROOK_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}
