package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rookgen junit writes the report whole, says what it holds, and exits 1 when the stream
// shows a failure, so that a pipeline without pipefail still fails.
func TestJUnitCommand(t *testing.T) {
	dir := t.TempDir()
	stream := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}
go: downloading example.com/x v1.0.0
{"Action":"pass","Package":"p","Elapsed":0.2}
`
	events := filepath.Join(dir, "events.json")
	require.NoError(t, os.WriteFile(events, []byte(stream), 0o644))
	out := filepath.Join(dir, "junit.xml")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"junit", "-o", out, events}, &stdout, &stderr), stderr.String())
	assert.Equal(t, "rookgen junit: 1 test(s), 0 failed, 0 skipped, in 1 package(s); 1 line(s) of the stream were not go test -json events (build output?): "+out+"\n", stderr.String())
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(data), `<testcase classname="p" name="TestA" time="0.100000"></testcase>`)

	failing := filepath.Join(dir, "failing.json")
	require.NoError(t, os.WriteFile(failing, []byte(strings.Replace(stream, `"Action":"pass","Package":"p","Test":"TestA"`, `"Action":"fail","Package":"p","Test":"TestA"`, 1)), 0o644))
	stdout.Reset()
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"junit", "-o", "-", failing}, &stdout, &stderr), "a failure in the stream fails the command")
	assert.Contains(t, stdout.String(), `<failure message="Failed" type="">=== RUN   TestA&#xA;</failure>`)
	assert.Contains(t, stderr.String(), "1 test(s), 1 failed")

	// A stream with no package, or whose package never ended, writes nothing it could
	// pass: it fails.
	lines := strings.SplitAfter(stream, "\n")
	for _, tc := range []struct{ name, text, says string }{
		{"empty.json", "", "the stream holds no go test -json event of any package"},
		{"unended.json", lines[0] + lines[2], "1 package(s) did not build or never ended"},
	} {
		path := filepath.Join(dir, tc.name)
		require.NoError(t, os.WriteFile(path, []byte(tc.text), 0o644))
		stderr.Reset()
		assert.Equal(t, 1, run([]string{"junit", "-o", filepath.Join(dir, tc.name+".xml"), path}, &stdout, &stderr), tc.name)
		assert.Contains(t, stderr.String(), tc.says, tc.name)
	}

	stderr.Reset()
	assert.Equal(t, 1, run([]string{"junit", filepath.Join(dir, "missing.json")}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "rookgen junit: open ")
}
