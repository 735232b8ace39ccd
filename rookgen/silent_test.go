package main

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUndecidedRunFails: a run that decided no criterion (here every criterion is
// llm_judge and no judge is configured) fails its profile's test with one line saying why,
// unless -rook.allow-undecided is given.
func TestUndecidedRunFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf("id: fake\nhooks:\n  execute: {command: [%q]}\nhook_env: {FAKEHOOK: \"1\"}\n", os.Args[0]))
	write(t, dir, "scenarios/fake/SC-1.yaml", "id: SC-1\ngoal: hi\nacceptance_criteria:\n  - {statement: The agent is kind., check: llm_judge}\n")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"-root", dir}, &stdout, &stderr), stderr.String())
	env := []string{"GOFLAGS=-mod=mod"}

	res, err := goTest(t, dir, env, "./scenarios/fake")
	require.Error(t, err, "a run that decided nothing does not print ok")
	assert.Equal(t, "fail", res.action["TestFake"])
	assert.Contains(t, res.output["TestFake"], "decided nothing: no criterion passed or failed (Unable to Verify (undecidable): 1 scenario(s))")
	assert.Equal(t, "skip", res.action["TestFake/SC-1"], "the scenario itself stays Unable to Verify")

	res, err = goTest(t, dir, env, "./scenarios/fake", "-rook.allow-undecided")
	require.NoError(t, err, res.all)
}
