package hook

import (
	"sync/atomic"
	"time"
)

// spent is the CPU time every hook this process ran has used, as its wait reported it.
var spent atomic.Int64

// Spent is the user and system time the hooks this process ran have used so far (each
// with the children it waited for), counted as each ends. What the run's in-flight limit
// reads, with the process's own, to tell how much of the machine a hook takes.
func Spent() time.Duration { return time.Duration(spent.Load()) }
