package spec

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Redteam is a scenario's redteam block: the attack it makes, and the signals that say it
// landed (success) or that the defence held (failure), as written. Rook's other keys in it
// (source_plugins, mutation_strategy) are kept in the snapshot.
type Redteam struct {
	AttackCategory string
	PatternID      string
	Success        []Signal
	Failure        []Signal
}

// Signal is one signal of a redteam block as written. The redteam package reads it
// (redteam.ParseSignal): a regular expression, one of Rook's forms, a tool call, or free
// text for a judge model.
type Signal struct {
	// Text is the signal: the string entry, or the mapping's regex or text.
	Text string
	// Form says how it was written.
	Form SignalForm
	// Flags are a {regex: ..., flags: ...} mapping's flags.
	Flags string
	// List is the key of the list it is in (success_signals, failure_signals), and Line
	// and Column its position.
	List         string
	Line, Column int
}

// SignalForm is how a signal is written.
type SignalForm int

// The forms of a signal.
const (
	// SignalString is a string entry, read by its shape (/regex/, Rook's forms, free text).
	SignalString SignalForm = iota
	// SignalRegex is a {regex: ..., flags: ...} mapping.
	SignalRegex
	// SignalText is a {text: ...} mapping: free text, whatever its shape.
	SignalText
)

// Err is a problem with the signal, at its position.
func (s Signal) Err(file string, err error) error {
	return &PosError{File: file, Line: s.Line, Column: s.Column, Msg: fmt.Sprintf("%s: %v", s.List, err)}
}

var redteamKeys = []string{"attack_category", "pattern_id", "source_plugins", "mutation_strategy", "success_signals", "failure_signals"}

// Adversarial reports whether the scenario is an attack: class adversarial, or a redteam
// block. Its verdict then says whether it was compromised.
func (s *Scenario) Adversarial() bool { return s.Class == "adversarial" || s.Redteam != nil }

// parseRedteam reads the redteam block; null is no block.
func parseRedteam(e *errs, f field) *Redteam {
	if isNull(f.v) {
		return nil
	}
	rt := &Redteam{}
	for _, g := range fields(e, f.v, "redteam", redteamKeys, false) {
		switch g.key {
		case "attack_category":
			rt.AttackCategory = str(e, g)
		case "pattern_id":
			rt.PatternID = str(e, g)
		case "success_signals":
			rt.Success = signals(e, g)
		case "failure_signals":
			rt.Failure = signals(e, g)
		}
	}
	return rt
}

// signals reads a list of signals: each a string, or a mapping {regex: ..., flags: i} or
// {text: ...}.
func signals(e *errs, f field) []Signal {
	if isNull(f.v) {
		return nil
	}
	if f.v.Kind != yaml.SequenceNode {
		e.at(f.v, "%s must be a list, not %s", f.key, kindName(f.v))
		return nil
	}
	var out []Signal
	for _, item := range f.v.Content {
		s := Signal{List: f.key, Line: item.Line, Column: item.Column}
		switch {
		case item.Kind == yaml.ScalarNode && !isNull(item):
			s.Text = item.Value
		case item.Kind == yaml.MappingNode:
			if !signalMap(e, item, &s) {
				continue
			}
		default:
			e.at(item, "%s entries must be strings or {regex: ...} / {text: ...}, not %s", f.key, kindName(item))
			continue
		}
		out = append(out, s)
	}
	return out
}

// signalMap reads a signal written as a mapping into s.
func signalMap(e *errs, n *yaml.Node, s *Signal) bool {
	var hasRe, hasText bool
	for _, g := range fields(e, n, "signal", []string{"regex", "flags", "text"}, true) {
		switch g.key {
		case "regex":
			s.Text, s.Form, hasRe = str(e, g), SignalRegex, true
		case "flags":
			s.Flags = str(e, g)
		case "text":
			s.Text, s.Form, hasText = str(e, g), SignalText, true
		}
	}
	if hasRe == hasText {
		e.at(n, "a signal mapping holds regex or text (one of them)")
		return false
	}
	return true
}
