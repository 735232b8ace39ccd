package spec

// SimulatedUser is a scenario's simulated user (simulated_user): after the setup messages,
// a model plays the user toward the goal, turn by turn, until it says the goal was reached,
// gives up, or MaxTurns of its messages were sent.
type SimulatedUser struct {
	// Persona is who the user is; Instructions what it does and when it stops.
	Persona, Instructions string
	// MaxTurns bounds the messages it sends.
	MaxTurns int
	At       Pos
}

// DefaultSimulatedTurns bounds a simulated user that gives no max_turns, nor the scenario.
const DefaultSimulatedTurns = 6

// maxSimulatedTurns bounds any simulated conversation.
const maxSimulatedTurns = 50

// parseSimulatedUser reads simulated_user: {persona, instructions, max_turns}.
func (p *scenarioParse) parseSimulatedUser(f field) {
	e := p.e
	u := &SimulatedUser{At: Pos{f.v.Line, f.v.Column}}
	for _, k := range fields(e, f.v, "simulated_user", []string{"persona", "instructions", "max_turns"}, true) {
		switch k.key {
		case "persona":
			u.Persona = str(e, k)
		case "instructions":
			u.Instructions = str(e, k)
		case "max_turns":
			n, ok := integer(e, k)
			switch {
			case !ok:
			case n < 1 || n > maxSimulatedTurns:
				e.at(k.v, "simulated_user.max_turns must be from 1 to %d, got %d", maxSimulatedTurns, n)
			default:
				u.MaxTurns = n
			}
		}
	}
	p.s.SimulatedUser = u
}

// SimulatedTurns is how many messages the scenario's simulated user may send: its
// max_turns, else the scenario's (Rook's max_turns) when it allows more than one turn, else
// DefaultSimulatedTurns.
func (s *Scenario) SimulatedTurns() int {
	switch u := s.SimulatedUser; {
	case u == nil:
		return 0
	case u.MaxTurns > 0:
		return u.MaxTurns
	case s.MaxTurns > 1:
		return min(s.MaxTurns, maxSimulatedTurns)
	}
	return DefaultSimulatedTurns
}
