package main

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rookgen check validates without writing or running anything, with generation's
// file:line:column errors.
func TestCheckCommand(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "go.mod", "module example.com/agents\n\ngo 1.26\n")
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  execute: {command: [%q]}\n", os.Args[0]))
	helloScenario(t, dir, "SC-1")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"check", "-root", dir}, &stdout, &stderr), stderr.String())
	assert.Equal(t, "rookgen check: 1 profile(s) and 1 scenario(s) of 1 agent(s) are valid\n", stdout.String())
	assert.NoFileExists(t, dir+"/scenarios/fake/fake_rook_test.go", "check writes nothing")

	write(t, dir, "scenarios/fake/SC-2.yaml", "id: SC-2\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contians, params: {text: hello}}\n")
	stdout.Reset()
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"check", "-root", dir}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), `scenarios/fake/SC-2.yaml:4:`)
	assert.Contains(t, stderr.String(), `unknown check "contians"; did you mean "contains"?`)
	assert.Empty(t, stdout.String())
	_, err := os.Stat(dir + "/scenarios/fake/fake_rook_test.go")
	assert.True(t, os.IsNotExist(err), "check writes nothing")
}
