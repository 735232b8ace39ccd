package store

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/record"
)

// writeAttempt writes an attempt's records as a run does, and returns its folder.
func writeAttempt(t *testing.T) string {
	t.Helper()
	run := filepath.Join(t.TempDir(), "run")
	dir := filepath.Join(run, "scenarios", "SC-1")
	r := NewRedactor(nil)
	require.NoError(t, WriteFile(filepath.Join(run, "run.yaml"), []byte("id: run\n")))
	require.NoError(t, r.JSON(filepath.Join(dir, "hooks.json"), map[string]any{"version": 1}))
	require.NoError(t, r.JSON(filepath.Join(dir, "evidence", "traces.json"), map[string]any{"spans": []any{map[string]any{"name": "execute_tool refund"}}}))
	require.NoError(t, r.JSON(filepath.Join(dir, "response.json"), map[string]any{"output": "no"}))
	require.NoError(t, r.WriteVerdict(dir, &record.Verdict{ScenarioID: "SC-1", Status: record.Fail, Criteria: []record.Row{}}))
	require.NoError(t, r.JSON(filepath.Join(dir, "hooks.json"), map[string]any{"version": 1, "again": true})) // a file written twice
	require.NoError(t, r.WriteVerdict(dir, &record.Verdict{ScenarioID: "SC-1", Status: record.Fail, Criteria: []record.Row{}}))
	require.NoError(t, VerifySealed(dir, true))
	_, err := ReadVerdict(dir)
	require.NoError(t, err)
	return dir
}

// A record edited, removed or added behind the writer's back, and a manifest edited, cut,
// reordered or removed, each break the seal at a named file; the verdict then counts
// nothing. Without a key a forger who recomputes the whole chain is not found; with
// ROOK_RECORD_KEY set, one without the key is.
func TestTheManifestSealsAnAttempt(t *testing.T) {
	edit := func(path, from, to string) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.True(t, strings.Contains(string(data), from), "%s holds %q", path, from)
		require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), from, to, 1)), 0o644))
	}
	for _, tc := range []struct {
		name   string
		tamper func(dir string)
		want   string
	}{
		{"a verdict edited, its digest left alone", func(d string) { edit(filepath.Join(d, "verdict.yaml"), "status: Fail", "status: Pass") }, "verdict.yaml was changed after it was written"},
		{"a trace edited", func(d string) {
			edit(filepath.Join(d, "evidence", "traces.json"), "execute_tool refund", "execute_tool lookup")
		}, "evidence/traces.json was changed after it was written"},
		{"a record removed", func(d string) { require.NoError(t, os.Remove(filepath.Join(d, "response.json"))) }, "response.json was removed after it was written"},
		{"a record added", func(d string) {
			require.NoError(t, os.WriteFile(filepath.Join(d, "evidence", "judge-response.json"), []byte("{}"), 0o644))
		}, "evidence/judge-response.json was added after the records were written"},
		{"the manifest reordered", func(d string) {
			path := filepath.Join(d, ManifestFile)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			lines[0], lines[1] = lines[1], lines[0]
			require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
		}, "does not follow the line before it"},
		{"the manifest cut", func(d string) {
			path := filepath.Join(d, ManifestFile)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[1:], "\n")+"\n"), 0o644))
		}, "does not follow the line before it"},
		{"the manifest removed", func(d string) { require.NoError(t, os.Remove(filepath.Join(d, ManifestFile))) }, "manifest.jsonl was removed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeAttempt(t)
			tc.tamper(dir)
			_, err := ReadVerdict(dir)
			require.ErrorIs(t, err, ErrUntrusted)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	// Without a key, a forger who writes the records and a whole new chain is not found:
	// the chain shows edits by what does not know of it. With a key, one without it is.
	forge := func(dir string) {
		edit(filepath.Join(dir, "evidence", "traces.json"), "execute_tool refund", "execute_tool lookup")
		require.NoError(t, os.Remove(filepath.Join(dir, ManifestFile)))
		r := NewRedactor(nil)
		for _, f := range []string{"hooks.json", "evidence/traces.json", "response.json", "verdict.yaml"} {
			data, err := os.ReadFile(filepath.Join(dir, f))
			require.NoError(t, err)
			require.NoError(t, r.Bytes(filepath.Join(dir, f), data)) // sealed again, as a forger's tool would
		}
	}
	dir := writeAttempt(t)
	forge(dir)
	_, err := ReadVerdict(dir)
	assert.NoError(t, err, "no key: a recomputed chain verifies (docs/security.md says so)")

	t.Setenv(RecordKeyVar, "ci-secret-7f3a9b")
	dir = writeAttempt(t)
	t.Setenv(RecordKeyVar, "")
	forge(dir) // the forger does not have the key
	t.Setenv(RecordKeyVar, "ci-secret-7f3a9b")
	_, err = ReadVerdict(dir)
	require.ErrorIs(t, err, ErrUntrusted)
	assert.Contains(t, err.Error(), "is not keyed with ROOK_RECORD_KEY")
	dir = writeAttempt(t)
	_, err = ReadVerdict(dir)
	assert.NoError(t, err, "records written with the key verify with it")
}

// A process killed between a write's seal and its rename leaves the manifest's final line
// one write ahead of its file. The attempt still verifies (the file is as the line before
// sealed it, or absent when none did), the next process to write there seals the file as
// it is before chaining anything after it, and it verifies after that too. A file that is
// neither as its final line nor as the line before says is still an edit.
func TestAWriteKilledBetweenItsSealAndItsRename(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string // the record whose write was cut
	}{
		{"a record written again", "hooks.json"},
		{"a record's first write", "collect.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeAttempt(t)
			path := filepath.Join(dir, tc.file)
			before, _ := os.ReadFile(path)
			// The seal of the write, and no rename: what a SIGKILL between the two leaves.
			require.NoError(t, sealWritten(path, fileSumOf([]byte(`{"version": 1, "cut": true}`))))
			require.NoError(t, VerifySealed(dir, true), "the cut write never landed")

			settled = recent{} // a new process: it has checked no manifest's tail
			require.NoError(t, NewRedactor(nil).JSON(filepath.Join(dir, "response.json"), map[string]any{"output": "again"}))
			require.NoError(t, VerifySealed(dir, true), "the tail was sealed as it is, then the new write chained after it")
			after, _ := os.ReadFile(path)
			assert.Equal(t, before, after)

			if tc.file == "hooks.json" {
				require.NoError(t, sealWritten(path, fileSumOf([]byte(`{"version": 2}`))))
				require.NoError(t, os.WriteFile(path, []byte(`{"forged": true}`), 0o644))
				assert.ErrorContains(t, VerifySealed(dir, true), "hooks.json was changed after it was written",
					"neither the cut write nor the one before it: an edit")
			}
		})
	}
}

func fileSumOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
