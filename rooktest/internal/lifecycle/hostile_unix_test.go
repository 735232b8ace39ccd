//go:build unix

package lifecycle_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

// Files a hook names as evidence are hostile input: /dev/zero, a FIFO and a symlink each
// fail only to be copied, and say why; a readable file is copied.
func TestEvidenceFilesAreReadAsHostileInput(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink("/dev/zero", link))
	good := filepath.Join(dir, "trace.json")
	require.NoError(t, os.WriteFile(good, []byte(`{"spans": 3}`), 0o644))
	for name, path := range map[string]string{"device": "/dev/zero", "fifo": fifo, "symlink": link, "regular": good} {
		t.Run(name, func(t *testing.T) {
			f := newRun(t, map[string]string{"FAKEHOOK_COLLECT": `json:{"evidence_file": "` + path + `"}`}, "")
			sc := parseScenario(t, "goal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: g}}\n")
			done := make(chan *lifecycle.Outcome, 1)
			go func() { done <- f.run.Scenario(context.Background(), sc, f.logs.add) }()
			var o *lifecycle.Outcome
			select {
			case o = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("reading the evidence file hung")
			}
			require.True(t, o.Judged())
			assert.Equal(t, record.Pass, o.Verdict.Status, "the scenario itself is unaffected")
			resp := readJSON(t, filepath.Join(o.Dir, "response.json"))
			if name == "regular" {
				assert.Len(t, resp["artifacts"], 1)
				assert.Nil(t, resp["artifacts_skipped"])
				return
			}
			assert.Empty(t, resp["artifacts"])
			skipped := resp["artifacts_skipped"].([]any)
			require.Len(t, skipped, 1)
			assert.Contains(t, skipped[0].(map[string]any)["why"], "not a regular file")
		})
	}
}
