package rooktest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A ROOKTEST_* or ROOK_* variable nothing reads, close to one something does, is named with
// the one it reads like; known ones, the hook contract's included, and unrelated ones are not.
func TestStrayVarsAreNamed(t *testing.T) {
	got := strayVars([]string{"ROOKTEST_TAGS=smoke", "ROOKTEST_TAG=fine", "ROOK_JUDGE_MODLE=m", "ROOK_JUDGE_URL=http://x",
		"ROOK_RUN_ID=r", "ROOK_SCENARIO_ID=s", "ROOKTEST_HOOK_MARK=m", "ROOK_SCREENSHOT_DIR=/tmp", "HOME=/root", "ROOKTEST_STRICTT=1",
		"ROOKTEST_MAX_WAIT=2m", "ROOK_JUDGE_API_KEY_2=k", "ROOK_JUDGE_API_KEY_X=k"})
	assert.Equal(t, []string{
		"ROOKTEST_STRICTT is set, but nothing reads it: did you mean ROOKTEST_STRICT?",
		"ROOKTEST_TAGS is set, but nothing reads it: did you mean ROOKTEST_TAG?",
		"ROOK_JUDGE_API_KEY_X is set, but nothing reads it: did you mean ROOK_JUDGE_API_KEY?",
		"ROOK_JUDGE_MODLE is set, but nothing reads it: did you mean ROOK_JUDGE_MODEL?",
	}, got, "a panel member's key (ROOK_JUDGE_API_KEY_2) is read")
}
