package main

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tool name one criterion alone names, that reads like one other criteria name, is warned
// about at generation (an error under -strict); with the agent's tools: declared, a name not
// in it is refused. not_called of a misspelt tool would pass for ever.
func TestAMisspeltToolIsNamed(t *testing.T) {
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", "id: fake\nhooks:\n  execute: scripts/h.mjs\n")
	write(t, dir, "profiles/fake/scripts/h.mjs", "")
	write(t, dir, "scenarios/fake/SC-1.yaml", "id: SC-1\ngoal: refund\nacceptance_criteria:\n  - {statement: s, check: not_called, params: {name: issue_refnd}}\n")
	write(t, dir, "scenarios/fake/SC-2.yaml", "id: SC-2\ngoal: refund\nacceptance_criteria:\n  - {statement: s, check: called, params: {name: issue_refund}}\n  - {statement: s, check: call_sequence, params: {names: [lookup_order, issue_refund]}}\n")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run([]string{"check", "-root", dir}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), `scenarios/fake/SC-1.yaml:4: criterion C1 names tool "issue_refnd", which no other criterion names; did you mean "issue_refund"?`)
	assert.NotContains(t, stderr.String(), `"lookup_order", which no other`, "a tool named once that reads like no other is not warned about")
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"check", "-strict", "-root", dir}, &stdout, &stderr))

	write(t, dir, "profiles/fake/fake.yaml", "id: fake\nhooks:\n  execute: scripts/h.mjs\ntools: [lookup_order, issue_refund]\n")
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"check", "-root", dir}, &stdout, &stderr), "refused, as a misspelt key is")
	assert.Contains(t, stderr.String(), `scenarios/fake/SC-1.yaml:4: criterion C1 names tool "issue_refnd", which profile fake's tools: list does not have; did you mean "issue_refund"?`)
}

// At the end of a run, a tool the criteria name that no attempt was observed to call, and
// that reads like one that was, is named; -rook.strict fails on it.
func TestAMisspeltToolIsNamedAtRunTime(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	t.Parallel() // waits on hooks and builds more than it computes
	dir := newModule(t)
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  execute: {command: [%q]}
capabilities: {calls: true}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_EXECUTE: 'json:{"output": "refunded", "calls": [{"name": "issue_refund", "arguments": {"order": "ORD-7"}}]}'
`, os.Args[0]))
	write(t, dir, "scenarios/fake/SC-1.yaml", "id: SC-1\ngoal: refund\nacceptance_criteria:\n  - {statement: s, check: not_called, params: {name: issue_refnd}}\n")
	rookgen(t, dir)
	out, err := goTestInPackage(t, dir, "fake")
	require.NoError(t, err, "not_called of the misspelt tool passes:\n%s", out)
	assert.Contains(t, out, `rooktest: warning: the suite's criteria name tool "issue_refnd", which no attempt of this run was observed to call; did you mean "issue_refund", which was called?`)
	out, err = goTestInPackage(t, dir, "fake", "-rook.strict")
	require.Error(t, err, out)
}
