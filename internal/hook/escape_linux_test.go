package hook_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/hook"
)

// A descendant that leaves the hook's process group (setsid) is found and killed when the
// hook ends: no process a hook started outlives it.
func TestEscapedDescendantIsKilled(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "daemon.pid")
	res, err := hook.Run(context.Background(), fake(t, "execute", "FAKEHOOK_EXECUTE=escape", "FAKEHOOK_PIDFILE="+pidfile))
	require.NoError(t, err, res.Stderr)
	b, err := os.ReadFile(pidfile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return syscall.Kill(pid, 0) != nil }, 5*time.Second, 20*time.Millisecond,
		"the daemon %d the hook left outlived it", pid)
}
