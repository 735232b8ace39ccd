//go:build !unix

package rooktest

import "time"

// selfCPU is 0 here: an automatic limit counts the hooks' CPU alone.
func selfCPU() time.Duration { return 0 }
