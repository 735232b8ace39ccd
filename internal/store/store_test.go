package store_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

func TestWriteFileReplacesWholeAndLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "verdict.yaml")
	require.NoError(t, store.WriteFile(path, []byte("a: 1\n")))
	require.NoError(t, store.WriteFile(path, []byte("a: 2\n")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "a: 2\n", string(data))
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the temporary file is renamed, never left behind")
}

func TestRedactorEverywhere(t *testing.T) {
	// A value with characters JSON escapes, and one that contains another.
	r := store.NewRedactor(map[string]string{"TOKEN": `a"b<c>&d`, "SHORT": "keys", "LONG": "keys-and-more", "EMPTY": "", "TINY": "abc"})
	assert.Equal(t, "x [redacted:TOKEN] [redacted:LONG] [redacted:SHORT] abc", r.String(`x a"b<c>&d keys-and-more keys abc`),
		"longest first; values under MinRedacted are left alone")
	assert.Equal(t, "nothing here", r.String("nothing here"), "an empty value redacts nothing")

	dir := t.TempDir()
	v := map[string]any{"out": `said a"b<c>&d`, "list": []string{"keys-and-more"}}
	require.NoError(t, r.JSON(filepath.Join(dir, "r.json"), v))
	data, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	var back map[string]any
	require.NoError(t, json.Unmarshal(data, &back), "redaction keeps JSON valid")
	assert.Equal(t, "said [redacted:TOKEN]", back["out"])
	assert.Equal(t, []any{"[redacted:LONG]"}, back["list"])

	require.NoError(t, r.YAML(filepath.Join(dir, "r.yaml"), v))
	data, _ = os.ReadFile(filepath.Join(dir, "r.yaml"))
	require.NoError(t, yaml.Unmarshal(data, &back), "redaction keeps YAML valid")
	assert.Equal(t, "said [redacted:TOKEN]", back["out"])

	require.NoError(t, r.Bytes(filepath.Join(dir, "raw"), []byte("goal: use keys now")))
	data, _ = os.ReadFile(filepath.Join(dir, "raw"))
	assert.Equal(t, "goal: use [redacted:SHORT] now", string(data))
}

func TestRedactionLeavesStructureAlone(t *testing.T) {
	// A value is redacted wherever it stands in a value, never in a key.
	r := store.NewRedactor(map[string]string{"K": "kept"})
	dir := t.TempDir()
	type rec struct {
		Skipped []string `json:"skipped" yaml:"skipped"`
		OK      bool     `json:"ok" yaml:"ok"`
		N       int      `json:"count" yaml:"count"`
	}
	v := rec{Skipped: []string{"is kept here"}, OK: true, N: 3}
	require.NoError(t, r.JSON(filepath.Join(dir, "r.json"), map[string]any{"b": v, "kept": []any{"kept", nil, 1.5}}))
	data, _ := os.ReadFile(filepath.Join(dir, "r.json"))
	assert.JSONEq(t, `{"kept":["[redacted:K]",null,1.5],"b":{"skipped":["is [redacted:K] here"],"ok":true,"count":3}}`, string(data))
	require.NoError(t, r.YAML(filepath.Join(dir, "r.yaml"), v))
	data, _ = os.ReadFile(filepath.Join(dir, "r.yaml"))
	assert.Equal(t, "skipped:\n  - is [redacted:K] here\nok: true\ncount: 3\n", string(data))
}

func TestWriteFileIsReadableByOthers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "verdict.yaml")
	require.NoError(t, store.WriteFile(path, []byte("status: record.Pass\n")))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())
}

func TestStore(t *testing.T) {
	root := t.TempDir()
	_, err := store.OpenRun(root, "agent", "../escape")
	assert.EqualError(t, err, `"../escape" is not a run id`)
	_, err = store.OpenRun(root, "agent", "R1")
	assert.ErrorIs(t, err, os.ErrNotExist)

	dir := filepath.Join(root, "agent", "R1")
	created := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	require.NoError(t, store.NewRedactor(nil).YAML(filepath.Join(dir, "run.yaml"), record.Run{Version: 1, ID: "R1", Created: created,
		Included: []record.Entry{{ScenarioID: "SC-1", Why: "selected"}}}))
	require.NoError(t, store.WriteFile(filepath.Join(dir, "scenarios", "SC-1", "hooks.json"),
		[]byte(`{"version": 1, "phases": {"execute": {"ran": true, "ok": true, "data": {"n": 9007199254740993}}}}`)))
	require.NoError(t, store.WriteFile(filepath.Join(dir, "scenarios", "SC-1", "verdict.yaml"), []byte("status: [broken\n")))

	s, err := store.OpenRun(root, "agent", "R1")
	require.NoError(t, err)
	run, err := s.Run()
	require.NoError(t, err)
	assert.Equal(t, created, run.Created, "times come back as times")
	assert.Equal(t, "SC-1", run.Included[0].ScenarioID)
	h, err := store.ReadHooks(s.ScenarioDir("SC-1"))
	require.NoError(t, err)
	assert.Equal(t, "9007199254740993", fmt.Sprint(h.Phases.Execute.Data["n"]), "numbers as the hook printed them")
	_, err = store.ReadVerdict(s.ScenarioDir("SC-1"))
	assert.ErrorContains(t, err, "verdict.yaml is corrupt")
	h, err = store.ReadHooks(s.ScenarioDir("SC-2"))
	require.NoError(t, err)
	assert.Nil(t, h.Phases.Execute, "no hooks.json: nothing recorded yet")
}

// A secret holding quotes, backslashes or newlines is redacted in the forms JSON and Go
// quoting print it too.
func TestRedactEscapedForms(t *testing.T) {
	key := "-----BEGIN KEY-----\nab\"c\\d\n-----END KEY-----"
	r := store.NewRedactor(map[string]string{"PEM": key})
	jsonForm, err := json.Marshal(map[string]string{"k": key})
	require.NoError(t, err)
	for _, text := range []string{key, string(jsonForm), fmt.Sprintf("failed: %q", key)} {
		got := r.String(text)
		assert.NotContains(t, got, "ab", "%s", got)
		assert.Contains(t, got, "[redacted:PEM]")
	}
}

// A secret split over pieces, or spanning lines, is redacted whole by a stream.
func TestStreamRedactsAcrossPieces(t *testing.T) {
	pem := "-----BEGIN KEY-----\nMIIEabc123\n-----END KEY-----"
	r := store.NewRedactor(map[string]string{"TOKEN": "tok4242secretvalue", "PEM": pem})
	text := "start tok4242secretvalue middle " + pem + " end \xff"
	for _, size := range []int{1, 3, 7, 64} {
		s := r.Stream()
		var out []byte
		for i := 0; i < len(text); i += size {
			out = append(out, s.Write([]byte(text[i:min(i+size, len(text))]))...)
		}
		out = append(out, s.Flush()...)
		assert.Equal(t, "start [redacted:TOKEN] middle [redacted:PEM] end \uFFFD", string(out), "pieces of %d", size)
	}
}

// A declared secret that redaction would mangle text with is weak: short, a plain word or
// a name, a number. A real credential's shapes are not, a long passphrase neither.
func TestWeakSecret(t *testing.T) {
	for v, want := range map[string]string{
		"wrong": "only 5 character(s)", "s3cr3t": "only 6 character(s)", "Pass": "only 4 character(s)",
		"password": "a plain word", "Ellington": "a plain word", "Unauthorized": "a plain word", "20261205": "a number",
		"tok4242secretvalue": "", "sk-live-9f8e7d6c": "", "correct horse battery staple": "", "abcdefghijklmnop": "",
		"3f2a9c1e-77b0-4c1d-9d2e-0b5f6a7c8d9e": "", "": "",
	} {
		assert.Equal(t, want, store.WeakSecret(v), v)
	}
	err := store.WeakSecrets(map[string]string{"B_TOKEN": "wrong", "A_PIN": "12345678", "OK_KEY": "sk-live-9f8e7d6c"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "declared secret A_PIN is a number, B_TOKEN is only 5 character(s): ")
	assert.NotContains(t, err.Error(), "wrong", "the error never shows the value")
	assert.NoError(t, store.WeakSecrets(map[string]string{"OK_KEY": "sk-live-9f8e7d6c", "UNSET": ""}))
}

// CopyTree never copies a folder into itself (which would truncate what it reads), never
// follows a link given as its source, and never widens a file's permissions.
func TestCopyTreeStaysInside(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	require.NoError(t, os.MkdirAll(src, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "a.txt"), []byte("data"), 0o600))
	for _, dst := range []string{src, filepath.Join(src, "inner")} {
		assert.ErrorContains(t, store.CopyTree(src, dst, nil), "into itself", dst)
	}
	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(src, link))
	assert.ErrorContains(t, store.CopyTree(link, filepath.Join(dir, "out1"), nil), "a link is not followed")
	data, err := os.ReadFile(filepath.Join(src, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "data", string(data), "nothing truncated")

	require.NoError(t, store.CopyTree(src, filepath.Join(dir, "out2"), nil))
	info, err := os.Stat(filepath.Join(dir, "out2", "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}
