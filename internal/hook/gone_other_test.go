//go:build !unix

package hook_test

import "os"

// processGone reports whether pid has ended: the system no longer knows it.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	_ = p.Release() // a handle only
	return false
}
