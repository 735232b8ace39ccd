//go:build !unix

package record

// Lock is a no-op where flock is not available.
func Lock(string) (func(), error) { return func() {}, nil }
