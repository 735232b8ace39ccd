// Package judge links the model judge's HTTP client into a test binary: a suite whose
// scenarios have an llm_judge criterion, or a free-text red-team signal, needs it to reach
// the judge server (ROOK_JUDGE_URL). rookgen imports it in the generated code of such a
// suite; a hand-written file of the test package may import it too:
//
//	import _ "github.com/rookgo/rookgo/rooktest/judge"
//
// A suite that no model judges does not link net/http, and builds faster for it.
package judge

import (
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/modeljudge/judgehttp"
	"github.com/rookgo/rookgo/rooktest/internal/capability"
)

func init() {
	capability.Judge = func() modeljudge.Transport { return judgehttp.New() }
}
