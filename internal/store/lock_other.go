//go:build !unix

package store

// Lock is a no-op where flock is not available.
func Lock(string) (func(), error) { return func() {}, nil }
