package check

import (
	"fmt"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// NoJudgeModel is the reason given to llm_judge criteria while no judge model decides them.
const NoJudgeModel = "no judge model configured"

func init() {
	register(&Kind{Name: "llm_judge", Parse: func(Params) Check { return &LLMJudge{} }})
}

// LLMJudge is a criterion a judge model decides: its statement is the whole check. It is
// decided for all of a scenario's llm_judge criteria at once, from the whole record, by the
// model judge when one is configured; on its own it is Unable to Verify (undecidable, "no
// judge model configured"), and never a pass.
type LLMJudge struct{}

func (c *LLMJudge) Expected() string { return "" }

// Observes: what the criterion needs is the model's to say, from the whole record.
func (c *LLMJudge) Observes() Observations { return ObservesModel }

func (c *LLMJudge) Judge(*observe.Observations) Result {
	r := unable(record.Undecidable, NoJudgeModel)
	r.Confidence = "Low"
	return r
}

// Unsupported is a check this project does not implement (Rook's mcp_probe, say): the
// criterion loads, keeps its params, and is Unable to Verify (undecidable), never guessed.
type Unsupported struct {
	Name string
}

func (c *Unsupported) Expected() string { return "" }

// Observes nothing: it is never decided here.
func (c *Unsupported) Observes() Observations { return 0 }

func (c *Unsupported) Judge(*observe.Observations) Result {
	r := unable(record.Undecidable, fmt.Sprintf("check %q is not supported by this judge", c.Name))
	r.Confidence = "Low"
	return r
}
