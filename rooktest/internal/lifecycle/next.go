package lifecycle

import (
	"fmt"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
)

// PhaseState is what an attempt's records say of one phase.
type PhaseState int

const (
	// Undefined: the profile has no hook for the phase.
	Undefined PhaseState = iota
	// None: no record yet.
	None
	// Succeeded: the hook ran and succeeded (for execute: every turn did).
	Succeeded
	// Failed: the hook failed (for execute: a turn did).
	Failed
	// Partial: some of execute's turns succeeded, and the rest never ran.
	Partial
)

func (s PhaseState) String() string {
	return [...]string{"undefined", "none", "ok", "failed", "partial"}[s]
}

// State is what an attempt's records say it has done, and what this process did to it.
type State struct {
	Open, Execute, Close, Collect PhaseState
	// Interrupted is the phase a killed process left in flight, or "".
	Interrupted spec.Phase
	// Here holds the phases this process has run for the attempt: none of them is run
	// again, and records this process made are never kept aside.
	Here Selection
}

func (s State) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "open=%s execute=%s close=%s collect=%s", s.Open, s.Execute, s.Close, s.Collect)
	if s.Interrupted != "" {
		fmt.Fprintf(&b, " in_flight=%s", s.Interrupted)
	}
	if len(s.Here) > 0 {
		b.WriteString(" here=" + s.Here.String())
	}
	return b.String()
}

// Action is the kind of a Step.
type Action int

const (
	// RunPhase runs Step.Phase.
	RunPhase Action = iota
	// Restart keeps the records aside in abandoned/<n>/ and starts again from open: a
	// conversation cannot resume mid-way.
	Restart
	// Judge decides the attempt from its records.
	Judge
	// Stop ends the attempt unjudged; Step.Why says why ("" when judge was not selected).
	Stop
	// Refuse ends the attempt before anything runs; Step.Why says why.
	Refuse
)

// Step is what an attempt does next.
type Step struct {
	Action Action
	Phase  spec.Phase
	Why    string
}

func (s Step) String() string {
	switch s.Action {
	case RunPhase:
		return "run " + string(s.Phase)
	case Restart:
		return "keep the records aside, start again from open"
	case Judge:
		return "judge"
	case Refuse:
		return "not run: " + s.Why
	}
	if s.Why == "" {
		return "stop: judge not selected"
	}
	return "stop: " + s.Why
}

// Next decides what an attempt does next, from its recorded state and the phases this
// process selected alone: the lifecycle's rules of continuation in one pure function. The
// attempt's loop calls it after every phase, until it judges or stops. runID goes into
// the reasons given.
func Next(s State, sel Selection, runID string) Step {
	ran := func(p PhaseState) bool { return p != None && p != Undefined }
	openOK := s.Open == Undefined || s.Open == Succeeded
	execOK := s.Execute == Succeeded
	execRan := ran(s.Execute)
	execEnded := execOK || s.Execute == Failed || s.Open == Failed

	// Records an earlier process left mid-conversation cannot be continued.
	if len(s.Here) == 0 {
		restart := (sel[spec.Execute] && !execOK && (execRan || s.Interrupted == spec.Execute || s.Interrupted == spec.Open || s.Open == Failed)) ||
			(sel[spec.Open] && (s.Open == Failed || s.Interrupted == spec.Open))
		if restart {
			if s.Open != Undefined && !sel[spec.Open] {
				return Step{Action: Refuse, Why: fmt.Sprintf("its conversation was interrupted or failed in run %s and cannot resume mid-conversation; continue with phases that include open to start it again", runID)}
			}
			return Step{Action: Restart}
		}
	}
	switch {
	case s.Open == None && sel[spec.Open]:
		return Step{Action: RunPhase, Phase: spec.Open}
	case sel[spec.Execute] && !execRan && openOK:
		return Step{Action: RunPhase, Phase: spec.Execute}
	}
	opened := ran(s.Open) || execRan
	if s.Close == None && sel[spec.Close] && opened {
		if !execEnded {
			return Step{Action: Stop, Why: fmt.Sprintf("close waits for execute, which has not completed in run %s", runID)}
		}
		return Step{Action: RunPhase, Phase: spec.Close}
	}
	closeEnded := s.Close != None || !opened
	if s.Collect != Undefined && s.Collect != Succeeded && !s.Here[spec.Collect] && sel[spec.Collect] && execRan {
		if !closeEnded || !execEnded {
			return Step{Action: Stop, Why: fmt.Sprintf("collect waits for close, which has not run in run %s", runID)}
		}
		return Step{Action: RunPhase, Phase: spec.Collect}
	}
	if !sel[spec.Judge] {
		return Step{Action: Stop}
	}
	collectEnded := s.Collect != None || !execRan
	switch {
	case !execEnded:
		return Step{Action: Stop, Why: fmt.Sprintf("not judged: execute has not completed in run %s", runID)}
	case !closeEnded:
		return Step{Action: Stop, Why: fmt.Sprintf("not judged: close has not run in run %s", runID)}
	case !collectEnded:
		return Step{Action: Stop, Why: fmt.Sprintf("not judged: collect has not run in run %s", runID)}
	}
	return Step{Action: Judge}
}

// state reads an attempt's hooks.json as Next sees it.
func state(h *record.Hooks, p *spec.Profile, turns int, here Selection) State {
	of := func(ph spec.Phase, rec *record.PhaseRecord) PhaseState {
		switch _, defined := p.Hooks[ph]; {
		case !defined && rec == nil:
			return Undefined
		case rec == nil:
			return None
		case rec.OK:
			return Succeeded
		}
		return Failed
	}
	s := State{Open: of(spec.Open, h.Phases.Open), Close: of(spec.Close, h.Phases.Close),
		Collect: of(spec.Collect, h.Phases.Collect), Execute: None, Here: here}
	if e := h.Phases.Execute; e != nil {
		ok := 0
		for _, t := range e.Turns {
			if !t.OK {
				s.Execute = Failed
				break
			}
			ok++
		}
		switch {
		case s.Execute == Failed:
		case ok == turns:
			s.Execute = Succeeded
		case ok > 0:
			s.Execute = Partial
		}
	}
	if h.InFlight != nil {
		s.Interrupted = spec.Phase(h.InFlight.Phase)
	}
	return s
}
