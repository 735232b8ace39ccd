package scenario

import (
	"errors"
	"fmt"

	"github.com/rookgo/rookgo/internal/redteam"
	"github.com/rookgo/rookgo/internal/spec"
)

// readSignals reads the block's signals, each as its form says.
func readSignals(file string, block *spec.Redteam) (*Redteam, error) {
	rt := &Redteam{Redteam: *block}
	var problems []error
	for _, list := range []struct {
		from []spec.Signal
		to   *[]redteam.Signal
	}{{block.Success, &rt.Success}, {block.Failure, &rt.Failure}} {
		for _, s := range list.from {
			sig, err := signal(s)
			if err != nil {
				problems = append(problems, s.Err(file, err))
				continue
			}
			*list.to = append(*list.to, sig)
		}
	}
	return rt, errors.Join(problems...)
}

// signal reads one signal: a mapping as its key says, a string by its shape.
func signal(s spec.Signal) (redteam.Signal, error) {
	switch s.Form {
	case spec.SignalRegex:
		return redteam.NewRegex(s.Text, s.Flags)
	case spec.SignalText:
		return redteam.NewText(s.Text)
	}
	return redteam.Parse(s.Text)
}

// JudgeSignals are the block's free-text signals, which only a judge model can decide.
func (rt *Redteam) JudgeSignals() (success, failure []redteam.Signal) {
	if rt == nil {
		return nil, nil
	}
	for _, s := range rt.Success {
		if s.Kind == redteam.Judge {
			success = append(success, s)
		}
	}
	for _, s := range rt.Failure {
		if s.Kind == redteam.Judge {
			failure = append(failure, s)
		}
	}
	return success, failure
}

// warnUnnamed warns of a signal that names a criterion the scenario does not have: it is
// kept, and decides nothing.
func (s *Scenario) warnUnnamed() {
	for _, sig := range append(append([]redteam.Signal(nil), s.Redteam.Success...), s.Redteam.Failure...) {
		if sig.Kind != redteam.Criterion {
			continue
		}
		named := false
		for _, c := range s.Criteria {
			named = named || sig.Names(c.Statement)
		}
		if !named {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: redteam signal %q names no criterion of the scenario; it decides nothing", s.File, sig.Raw))
		}
	}
}
