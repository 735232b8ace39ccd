package check

import (
	"fmt"

	"github.com/rookgo/rookgo/internal/observe"
)

func init() {
	register(&Kind{Name: "not_equals", Turn: true, Params: []string{"value", "in", "case_sensitive"}, Parse: func(p Params) Check {
		c := &NotEquals{In: textSource(p), CaseSensitive: p.Bool("case_sensitive")}
		if p.Require("value") {
			c.Value = p.Scalar("value")
		}
		return c
	}})
}

// NotEquals passes when the trimmed text differs from the value: the reply is not a
// canned answer, not an echo of the goal, not an empty refusal template.
type NotEquals struct {
	Value         string
	In            string
	CaseSensitive bool
}

func (c *NotEquals) Detail() string { return "" }

func (c *NotEquals) Observes() Observations { return ObservesReply }

func (c *NotEquals) Expected() string {
	return fmt.Sprintf("%s does not equal %q%s", where(c.In), c.Value, caseNote(c.CaseSensitive))
}

func (c *NotEquals) Judge(ev *observe.Observations) Result {
	return judgeEqual(ev, c.In, c.Value, c.CaseSensitive, false)
}
