package spec

import (
	"fmt"

	"github.com/rookgo/rookgo/internal/redteam"
	"gopkg.in/yaml.v3"
)

// Redteam is a scenario's redteam block: the attack it makes, and the signals that say it
// landed (success) or that the defence held (failure). Rook's other keys in it
// (source_plugins, mutation_strategy) are kept in the snapshot.
type Redteam struct {
	AttackCategory string
	PatternID      string
	Success        []redteam.Signal
	Failure        []redteam.Signal
}

var redteamKeys = []string{"attack_category", "pattern_id", "source_plugins", "mutation_strategy", "success_signals", "failure_signals"}

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

// hasJudgeSignal reports whether the block has a free-text signal.
func (rt *Redteam) hasJudgeSignal() bool {
	if rt == nil {
		return false
	}
	for _, list := range [][]redteam.Signal{rt.Success, rt.Failure} {
		for _, s := range list {
			if s.Kind == redteam.Judge {
				return true
			}
		}
	}
	return false
}

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

// signals reads a list of signals: each a string (a /regex/, one of Rook's forms, a tool
// call, or free text), or a mapping {regex: ..., flags: i} or {text: ...}.
func signals(e *errs, f field) []redteam.Signal {
	if isNull(f.v) {
		return nil
	}
	if f.v.Kind != yaml.SequenceNode {
		e.at(f.v, "%s must be a list, not %s", f.key, kindName(f.v))
		return nil
	}
	var out []redteam.Signal
	for _, item := range f.v.Content {
		var s redteam.Signal
		var err error
		switch {
		case item.Kind == yaml.ScalarNode && !isNull(item):
			s, err = redteam.Parse(item.Value)
		case item.Kind == yaml.MappingNode:
			s, err = signalMap(e, item)
		default:
			e.at(item, "%s entries must be strings or {regex: ...} / {text: ...}, not %s", f.key, kindName(item))
			continue
		}
		if err != nil {
			e.at(item, "%s: %v", f.key, err)
			continue
		}
		if s.Kind != "" {
			out = append(out, s)
		}
	}
	return out
}

func signalMap(e *errs, n *yaml.Node) (redteam.Signal, error) {
	var re, flags, text string
	var hasRe, hasText bool
	for _, g := range fields(e, n, "signal", []string{"regex", "flags", "text"}, true) {
		switch g.key {
		case "regex":
			re, hasRe = str(e, g), true
		case "flags":
			flags = str(e, g)
		case "text":
			text, hasText = str(e, g), true
		}
	}
	switch {
	case hasRe == hasText:
		e.at(n, "a signal mapping holds regex or text (one of them)")
		return redteam.Signal{}, nil
	case hasRe:
		return redteam.NewRegex(re, flags)
	}
	return redteam.NewText(text)
}

// redteamNames warns of a signal that names a criterion the scenario does not have: it is
// kept, and decides nothing.
func (p *scenarioParse) redteamNames() {
	rt := p.s.Redteam
	if rt == nil {
		return
	}
	for _, s := range append(append([]redteam.Signal(nil), rt.Success...), rt.Failure...) {
		if s.Kind != redteam.Criterion {
			continue
		}
		named := false
		for _, c := range p.s.Criteria {
			named = named || s.Names(c.Statement)
		}
		if !named {
			p.s.Warnings = append(p.s.Warnings, fmt.Sprintf("%s: redteam signal %q names no criterion of the scenario; it decides nothing", p.e.file, s.Raw))
		}
	}
}
