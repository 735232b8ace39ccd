package mcpprobe

import "io"

// server is a command server started for one probe: its stdin and stdout, and stop, which
// ends it and names the processes it left running (ended since).
type server struct {
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stop   func() []string
}
