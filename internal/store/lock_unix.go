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
	// O_NOFOLLOW: a run.lock that is a link (a hook could make one) is never written
	// through.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
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

// Held reports whether another process holds the run folder's lock, writing nothing: a
// missing run.lock is not held, and one that is a link is an error.
func Held(dir string) (bool, error) {
	f, err := os.OpenFile(filepath.Join(dir, "run.lock"), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the run folder's lock: %w", err)
	}
	defer func() { _ = f.Close() }() // read only; closing releases a lock taken here
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return true, nil
		}
		return false, fmt.Errorf("read the run folder's lock: %w", err)
	}
	return false, nil
}
