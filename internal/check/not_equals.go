package check

import (
	"fmt"
	"strings"
)

func init() {
	register(&Kind{Name: "not_equals", Params: []string{"value", "in", "case_sensitive"}, Parse: func(p Params) Check {
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

func (c *NotEquals) Expected() string {
	return fmt.Sprintf("%s does not equal %q%s", where(c.In), c.Value, caseNote(c.CaseSensitive))
}

func (c *NotEquals) Judge(ev *Evidence) Result {
	hay, w := text(c.In, ev)
	got, want := strings.TrimSpace(hay), strings.TrimSpace(c.Value)
	same := got == want || (!c.CaseSensitive && strings.EqualFold(got, want))
	return Result{Status: passIf(!same), Achieved: fmt.Sprintf("%s is %q", w, clip(got, 200)), Evidence: Excerpt(hay, 0, 0)}
}
