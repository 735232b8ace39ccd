package mcpprobe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/mcpprobe/mcptest"
	"github.com/rookgo/rookgo/internal/spec"
)

func init() {
	leaveDaemons = func() {
		var pids []string
		for _, attr := range []*syscall.SysProcAttr{{Setsid: true}, {Setpgid: true}} {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "MCPPROBE_SERVE=sleep")
			cmd.SysProcAttr = attr
			if err := cmd.Start(); err != nil {
				os.Exit(4)
			}
			pids = append(pids, strconv.Itoa(cmd.Process.Pid))
		}
		if err := os.WriteFile(os.Getenv("MCPPROBE_PIDS"), []byte(strings.Join(pids, " ")), 0o644); err != nil {
			os.Exit(5)
		}
		if err := mcptest.BankServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
}

// An MCP server runs under the hook supervisor: the two daemons it leaves (one in a session
// of its own, one in a process group of its own) are ended when the probe is done, and
// the probe's record names them.
func TestWhatAServerLeavesIsEndedAndNamed(t *testing.T) {
	pidFile := t.TempDir() + "/pids"
	srv := spec.MCPServer{Name: "ledger", Command: []string{os.Args[0]}, Env: map[string]string{"MCPPROBE_SERVE": "daemons", "MCPPROBE_PIDS": pidFile}}
	p := Call(ctx(t), []spec.MCPServer{srv}, t.TempDir(), os.Environ(), Request{Server: "ledger", Tool: "get_balance", Arguments: map[string]any{"account": "ACC-1001"}})
	require.Empty(t, p.Error)
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pids := strings.Fields(string(data))
	require.Len(t, pids, 2)
	require.Len(t, p.LeftRunning, 2, "%v", p.LeftRunning)
	for _, pid := range pids {
		assert.True(t, strings.HasPrefix(p.LeftRunning[0], "pid "+pid+": ") || strings.HasPrefix(p.LeftRunning[1], "pid "+pid+": "), "%s in %v", pid, p.LeftRunning)
		n, _ := strconv.Atoi(pid)
		assert.True(t, ended(n), "pid %d still runs", n)
	}
	t.Log(fmt.Sprint("left running, ended: ", p.LeftRunning))
}

// ended reports whether pid no longer runs: gone, or a zombie its reaper (the supervisor)
// has not collected yet.
func ended(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // gone between the two looks
	}
	// The state follows the command, which is in parentheses and may hold any byte.
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
