package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A profile's rate that cannot be read stops generation and rookgen check, named at its
// place in the file; one that reads generates.
func TestAProfilesRateIsReadWhereItIsWritten(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "profiles/a/p.yaml", "id: p\nhooks: {execute: hook.mjs}\nrate: 60/min\n")
	write(t, dir, "profiles/a/hook.mjs", "")
	write(t, dir, "scenarios/a/SC-1.yaml", "id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: g}}\n")
	var stdout, stderr bytes.Buffer
	require.Equal(t, 1, run([]string{"-root", dir}, &stdout, &stderr), stderr.String())
	want := `profiles/a/p.yaml:3:7: rate "60/min": want R/s, R/m or R/h with R a whole number above 0, for example 60/m`
	assert.Contains(t, stderr.String(), want)
	stderr.Reset()
	require.Equal(t, 1, run([]string{"check", "-root", dir}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stderr.String(), want)

	write(t, dir, "profiles/a/p.yaml", "id: p\nhooks: {execute: hook.mjs}\nrate: 60/m\n")
	stderr.Reset()
	require.Equal(t, 0, run([]string{"-root", dir}, &stdout, &stderr), stderr.String())
}
