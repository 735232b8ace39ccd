//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Lock takes the run folder for this process alone: two processes writing one run (two
// -rook.run=<id> at once) would run its hooks twice and mix their records. The second is
// refused, naming the holder's pid. The lock goes with the process, however it ends.
func Lock(dir string) (release func(), err error) {
	path := filepath.Join(dir, "run.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock the run folder: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close() // not ours
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder, _ := os.ReadFile(path)
			return nil, fmt.Errorf("run %s is being written by another process (pid %s); wait for it to end", filepath.Base(dir), strings.TrimSpace(string(holder)))
		}
		return nil, fmt.Errorf("lock the run folder: %w", err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0) // the holder's pid, for the refusal's message
	}
	return func() { _ = f.Close() }, nil // closing releases the lock
}
