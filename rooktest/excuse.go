package rooktest

// excused is a tb whose failures are said and not counted: those of a quarantined
// scenario, and those of the attempts a min_pass scenario could spare. Each failure is
// written as it would be, then marked; a subtest that failed ends skipped with why, so
// that JUnit lists it as skipped with its reason, and the parent is not failed by it.
type excused struct {
	tb
	why    string
	failed bool
}

func (e *excused) Fail() {
	if !e.failed {
		logln(e.tb, "(not counted: "+e.why+")")
	}
	e.failed = true
}

func (e *excused) FailNow() {
	e.Fail()
	e.tb.SkipNow()
}

func (e *excused) Failed() bool { return e.failed }

func (e *excused) Run(name string, f func(tb)) bool {
	var sub *excused
	e.tb.Run(name, func(t tb) {
		sub = &excused{tb: t, why: e.why}
		defer sub.end()
		f(sub)
	})
	if sub != nil && sub.failed {
		e.Fail()
	}
	return true
}

// end skips a subtest that failed and has not already been skipped, saying why.
func (e *excused) end() {
	if e.failed && !e.tb.Skipped() && !e.tb.Failed() {
		skipln(e.tb, "failed, not counted: "+e.why)
	}
}
