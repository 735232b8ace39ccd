package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileSecretsAndDaemons runs hooks that print three hostile secrets every way they
// can and leave processes behind every way they can (a child in a group of its own, a
// daemon in a session of its own, a double fork), through gotestsum: no secret reaches the
// records, the go test -json stream or JUnit; each scenario whose hook left a process is
// warned about, naming it; none of those processes is alive afterwards; and a server the
// package's TestMain started in a session of its own runs through it all and ends with its
// own exit status.
func TestHostileSecretsAndDaemons(t *testing.T) {
	t.Parallel() // waits on hooks and builds more than it computes
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	secrets := map[string]string{"TOK_SECRET": "tok4242secretvalue", "ODD_SECRET": `Sup3r"Se\cr3t!Val`,
		"PEM_SECRET": "-----BEGIN TEST KEY-----\nMIIEpAIBAAKCAQEA7secretline\n-----END TEST KEY-----"}
	dir := newModule(t)
	pids := t.TempDir()
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
  FAKEHOOK_EXECUTE_SC_GROUP: own-group
  FAKEHOOK_EXECUTE_SC_FORK: double-fork
  FAKEHOOK_COLLECT: "exit:3:collect saw $PEM_SECRET and $ODD_SECRET"
capabilities: {multi_turn: true, calls: true, usage: true}
`, os.Args[0], filepath.Join(pids, "$ROOK_SCENARIO_ID.pid")))
	left := []string{"SC-DAEMON", "SC-GROUP", "SC-FORK"}
	for _, id := range append([]string{"SC-ECHO"}, left...) {
		write(t, dir, "scenarios/fake/"+id+".yaml", "id: "+id+"\ngoal: say $TOK_SECRET\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: say}}\n")
	}
	write(t, dir, "scenarios/fake/main_test.go", setsidServerMain)
	rookgen(t, dir)
	env := []string{goflags}
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

	assert.Contains(t, res.all, "the setsid server ran through the suite and exited with status 7")
	for _, id := range left {
		b, err := os.ReadFile(filepath.Join(pids, id+".pid"))
		require.NoError(t, err, id)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		require.NoError(t, err)
		assert.Eventually(t, func() bool { return processGone(pid) }, 5*time.Second, 20*time.Millisecond,
			"%s: the process %d its hook left behind is alive", id, pid)
		assert.Contains(t, res.output["TestFake/"+id], fmt.Sprintf("rooktest: warning: %s: hooks or MCP servers exited and left processes running, ended when each exited: execute turn 1: pid %d: ", id, pid))
	}
	assert.NotContains(t, res.output["TestFake/SC-ECHO"], "left processes running")
}

// setsidServerMain is a TestMain that starts a server in a session of its own before the
// suite, as a test starting its agent would, and checks after it that the server is still
// running and that its Wait returns its own exit status.
const setsidServerMain = `package fake_test

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

func TestMain(m *testing.M) {
	server := exec.Command("sh", "-c", "read line; exit 7")
	server.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	stdin, err := server.StdinPipe()
	if err == nil {
		err = server.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the server:", err)
		os.Exit(2)
	}
	code := m.Run()
	if err := syscall.Kill(server.Process.Pid, 0); err != nil {
		fmt.Fprintln(os.Stderr, "the setsid server is gone:", err)
		os.Exit(2)
	}
	stdin.Write([]byte("stop\n"))
	err = server.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
		fmt.Fprintln(os.Stderr, "the setsid server's Wait:", err)
		os.Exit(2)
	}
	fmt.Fprintln(os.Stderr, "the setsid server ran through the suite and exited with status 7")
	os.Exit(code)
}
`
