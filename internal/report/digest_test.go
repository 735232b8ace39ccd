package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scenario's snapshot digest is held as 32 bytes and written in hex by every format;
// an unset one is left out.
func TestDigestFormats(t *testing.T) {
	d := Digest(sha256.Sum256([]byte("id: SC-1\n")))
	want := hex.EncodeToString(d[:])
	r := &Report{Scenarios: rows(t, Scenario{ID: "SC-1", Snapshot: d}, Scenario{ID: "SC-2"})}
	var js, ym bytes.Buffer
	require.NoError(t, r.JSON(&js))
	require.NoError(t, r.YAML(&ym))
	assert.Contains(t, js.String(), `"snapshot_sha256": "`+want+`"`)
	assert.Contains(t, ym.String(), "snapshot_sha256: "+want)
	assert.Equal(t, 1, strings.Count(js.String(), "snapshot_sha256"), "the unset digest is left out")
	assert.Equal(t, 1, strings.Count(ym.String(), "snapshot_sha256"))
	var back Digest
	require.NoError(t, back.UnmarshalText([]byte(want)))
	assert.Equal(t, d, back)
	assert.Error(t, back.UnmarshalText([]byte("abc")))
}
