//go:build !unix

package main

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

// sigterm is how a test asks a run to stop; there is no SIGTERM here to send.
var sigterm os.Signal = os.Interrupt
