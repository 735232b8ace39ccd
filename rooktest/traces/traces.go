// Package traces links the run's OpenTelemetry trace receiver into a test binary: a suite
// whose profile sets traces: otlp (or that is run with -rook.traces) needs it. rookgen
// imports it in the generated code of such a suite; a hand-written file of the test package
// may import it too:
//
//	import _ "github.com/rookgo/rookgo/rooktest/traces"
package traces

import (
	"github.com/rookgo/rookgo/internal/otlp"
	"github.com/rookgo/rookgo/rooktest/internal/capability"
)

func init() {
	capability.Traces = func(addr string) (capability.Receiver, error) {
		if addr == "" {
			return otlp.Start()
		}
		return otlp.StartAt(addr)
	}
}
