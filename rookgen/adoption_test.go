package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAdoptionAsTheREADMESays runs the README's commands for a fork or a private copy, as
// written, in a fresh module: they must reach a green go test ./scenarios/....
func TestAdoptionAsTheREADMESays(t *testing.T) {
	t.Parallel() // waits on the go command more than it computes
	if testing.Short() {
		t.Skip("runs the go command against a fresh module")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("the hook init writes runs on node")
	}
	repo, err := filepath.Abs("..")
	require.NoError(t, err)
	commands := readmeBlock(t, filepath.Join(repo, "README.md"), "**From a fork or a private copy**")
	require.NotEmpty(t, commands)
	dir := t.TempDir()
	env := append(os.Environ(), "ROOKGO="+repo, "GOFLAGS=-ldflags=-w")
	sh := func(line string) string {
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s:\n%s", line, out)
		return string(out)
	}
	sh("go mod init example.com/adopt")
	var last string
	for _, line := range commands {
		last = sh(line)
		t.Logf("$ %s", line)
	}
	require.True(t, strings.HasPrefix(commands[len(commands)-1], "go test ./scenarios/..."), commands)
	require.Contains(t, last, "ok  \texample.com/adopt/scenarios/myagent")
}

// readmeBlock is the command lines (comments left out) of the first sh block after the line
// that starts with marker.
func readmeBlock(t *testing.T, path, marker string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	seen, in := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !seen:
			seen = strings.HasPrefix(line, marker)
		case !in:
			in = line == "```sh"
		case line == "```":
			return lines
		case strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "#"):
			lines = append(lines, line)
		}
	}
	t.Fatalf("%s has no sh block after %q", path, marker)
	return nil
}
