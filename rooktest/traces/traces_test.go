package traces

import (
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/rooktest/internal/capability"
)

// A fixed trace address another process holds is the documented error, and no receiver: a
// nil *otlp.Receiver in the interface would pass a nil check and panic when used.
func TestAnAddressInUseIsAnError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	r, err := capability.Traces(ln.Addr().String())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "another process listens there")
	assert.True(t, r == nil, "the receiver is nil, not a nil pointer in an interface: %#v", r)
}
