//go:build !unix

package store

// Lock is a no-op where flock is not available.
func Lock(string) (func(), error) { return func() {}, nil }

// Held is always false where flock is not available.
func Held(string) (bool, error) { return false, nil }
