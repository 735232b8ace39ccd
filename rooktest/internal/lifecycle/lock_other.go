//go:build !unix

package lifecycle

// lock is a no-op where flock is not available.
func lock(string) (func(), error) { return func() {}, nil }
