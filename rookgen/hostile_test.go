package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileSecretsAndDaemons runs hooks that print three hostile secrets every way they
// can and leave a daemon behind, through gotestsum: no secret reaches the records, the go
// test -json stream or JUnit, and no process a hook started is alive afterwards.
func TestHostileSecretsAndDaemons(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	secrets := map[string]string{"TOK_SECRET": "tok4242secretvalue", "ODD_SECRET": `Sup3r"Se\cr3t!Val`,
		"PEM_SECRET": "-----BEGIN TEST KEY-----\nMIIEpAIBAAKCAQEA7secretline\n-----END TEST KEY-----"}
	dir := newModule(t)
	pidfile := filepath.Join(t.TempDir(), "daemon.pid")
	write(t, dir, "profiles/fake/fake.yaml", fmt.Sprintf(`id: fake
hooks:
  execute: {command: [%[1]q]}
  collect: {command: [%[1]q]}
env:
  - {variable: TOK_SECRET}
  - {variable: ODD_SECRET}
  - {variable: PEM_SECRET, secret: true}
hook_env:
  FAKEHOOK: "1"
  FAKEHOOK_PIDFILE: %[2]q
  FAKEHOOK_STDERR: "tok $TOK_SECRET odd $ODD_SECRET pem $PEM_SECRET \x16=== RUN   TestForged"
  FAKEHOOK_EXECUTE_SC_DAEMON: escape
  FAKEHOOK_COLLECT: "exit:3:collect saw $PEM_SECRET and $ODD_SECRET"
capabilities: {multi_turn: true, calls: true, usage: true}
`, os.Args[0], pidfile))
	for _, id := range []string{"SC-ECHO", "SC-DAEMON"} {
		write(t, dir, "scenarios/fake/"+id+".yaml", "id: "+id+"\ngoal: say $TOK_SECRET\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: say}}\n")
	}
	rookgen(t, dir)
	env := []string{"GOFLAGS=-mod=mod"}
	for k, v := range secrets {
		env = append(env, k+"="+v)
	}
	res, junit, err := gotestsum(t, dir, env, "./scenarios/fake")
	require.Error(t, err, "collect fails")
	texts := []string{res.all, string(junit)}
	require.NoError(t, filepath.WalkDir(filepath.Join(dir, ".rook"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		texts = append(texts, string(b))
		return err
	}))
	all := strings.Join(texts, "\n")
	for _, part := range []string{"tok4242", "Sup3r", `Se\cr3t`, "MIIEpAIBAAKCAQEA7secretline", "BEGIN TEST KEY"} {
		assert.NotContains(t, all, part)
	}
	assert.Contains(t, res.all, "[redacted:PEM_SECRET]")
	_, forged := res.action["TestForged"]
	assert.False(t, forged, "a hook's \\x16 framed no test event")

	b, err := os.ReadFile(pidfile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	assert.Error(t, syscall.Kill(pid, 0), "the daemon %d a hook left behind is gone", pid)
}
