package rooktest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/rooktest/internal/capability"
)

// A run that configures a judge for selected scenarios a model decides is refused before
// any hook runs when the binary links no judge client, with what to do; without a judge,
// or with none of them selected, it goes on (their criteria are Unable to Verify, as with
// no judge configured).
func TestAJudgeWithoutItsClientIsRefused(t *testing.T) {
	require.Nil(t, capability.Judge, "rooktest's own tests do not link rooktest/judge")
	judged := brief{id: "SC-1", flags: judgedModel | runSelected}
	plain := brief{id: "SC-2", flags: runSelected}
	unselected := brief{id: "SC-3", flags: judgedModel}
	withJudge := judgeOptions{cfg: modeljudge.Config{URL: "http://127.0.0.1:9/v1", Model: "m"}}

	err := (&setup{jopts: withJudge, scenarios: []brief{plain, judged, unselected}}).judgeLinked()
	require.Error(t, err)
	assert.Equal(t, `a judge is configured and a model decides criteria or signals of SC-1, but this test binary does not link the judge client: run go generate ./... (rookgen imports it when a scenario of the suite has an llm_judge criterion or a free-text red-team signal), or import _ "github.com/rookgo/rookgo/rooktest/judge" in a file of this test package`, err.Error())

	assert.NoError(t, (&setup{jopts: withJudge, scenarios: []brief{plain, unselected}}).judgeLinked())
	assert.NoError(t, (&setup{scenarios: []brief{judged}}).judgeLinked(), "no judge configured")

	var many []brief
	for _, id := range []string{"SC-1", "SC-2", "SC-3", "SC-4", "SC-5", "SC-6", "SC-7"} {
		many = append(many, brief{id: id, flags: judgedModel | runSelected})
	}
	err = (&setup{jopts: withJudge, scenarios: many}).judgeLinked()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "of SC-1, SC-2, SC-3, SC-4, SC-5 and 2 more, but")
}
