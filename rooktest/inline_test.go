package rooktest

import (
	"os/exec"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScenarioIsNotInlined: generated tests call Run.Scenario once per scenario in one
// function; were it inlined, a suite of thousands of scenarios would take minutes and
// gigabytes to compile.
func TestScenarioIsNotInlined(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the compiler")
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", "-o", "/dev/null", ".").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "can inline", "the compiler reported its inlining decisions")
	assert.NotRegexp(t, regexp.MustCompile(`(?m)can inline \(\*Run\)\.Scenario$`), string(out))
}
