package rooktest

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/spec"
)

// briefFor is sc's brief, as load makes it with every subtest selected.
func briefFor(sc *scenario.Scenario) *brief {
	var bf briefer
	b := bf.briefOf(sc.ID, sc, nil)
	return &b
}

func TestBriefKeepsWhatPlanningReads(t *testing.T) {
	var bf briefer
	judged := &scenario.Scenario{Scenario: spec.Scenario{ID: "SC-1", Title: "Refund a late order", Class: "functional", Category: "negative",
		Tags: []string{"refunds", "smoke"}, SetupMessages: []string{"hi", "my order"}},
		Criteria: []scenario.Criterion{{Criterion: spec.Criterion{ID: "C1", Kind: "llm_judge"}, Check: &check.LLMJudge{}}}}
	off := &scenario.Scenario{Scenario: spec.Scenario{ID: "SC-2", Class: "functional", Category: "negative", Tags: []string{"refunds", "smoke"},
		Excluded: true, NotExecutable: true, SkipReason: "needs a file upload", RequiresUsage: true}}
	var asked []string
	runs := func(subtest string) bool {
		asked = append(asked, subtest)
		return subtest == "SC-1_refund_a_late_order"
	}

	a, b := bf.briefOf("SC-1", judged, runs), bf.briefOf("SC-2", off, runs)
	assert.Equal(t, []string{"SC-1_refund_a_late_order", "SC-2"}, asked, "-run is asked about each subtest's name")
	assert.Equal(t, brief{id: "SC-1", class: "functional", category: "negative", tags: []string{"refunds", "smoke"}, turns: 3,
		flags: multiTurn | judgedModel | runSelected}, a)
	assert.Equal(t, brief{id: "SC-2", class: "functional", category: "negative", tags: []string{"refunds", "smoke"}, turns: 1,
		skipReason: "needs a file upload", flags: excluded | notExecutable | gradesUsage}, b)
	assert.Equal(t, unsafe.SliceData(a.tags), unsafe.SliceData(b.tags), "the same tags are one list")
	assert.Equal(t, unsafe.StringData(a.class), unsafe.StringData(b.class), "the same class is one string")

	// The skip reason of a scenario that is executable is no part of its plan.
	ok := &scenario.Scenario{Scenario: spec.Scenario{ID: "SC-3", SkipReason: "stale"}}
	c := bf.briefOf("SC-3", ok, nil)
	assert.Empty(t, c.skipReason)
	assert.True(t, c.has(runSelected), "without a -run filter every subtest is selected")
}
