package lifecycle

import (
	"context"
	"fmt"
	"time"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/simuser"
)

// A scenario's simulated user (simulated_user): after its setup messages, each execute
// turn's message is the simulator's (or, replaying a recording, the recorded user's), and
// the attempt takes as many turns as the conversation does.

// turnsWanted is how many execute turns the attempt takes: the scenario's, or, with a
// simulated user, as many as it has taken once the simulation ended, and one more until
// then.
func (a *attemptRun) turnsWanted() int {
	if a.sc.SimulatedUser == nil {
		return a.sc.Turns()
	}
	done := 0
	if e := a.hooks.Phases.Execute; e != nil {
		done = len(e.Turns)
	}
	if s := a.hooks.Simulation; s != nil && s.Ended != "" {
		return done
	}
	return done + 1
}

// userTurn is the simulated user's message of turn n, asked of the simulator with the
// conversation so far (turns), and recorded in the attempt's simulation; ok is false when
// the conversation ends here: the simulator said so, the turns ran out, or it failed (then
// rec is the failed turn to record).
func (a *attemptRun) userTurn(ctx context.Context, n int, turns []*record.PhaseRecord) (msg string, ok bool, rec *record.PhaseRecord) {
	sc, cfg := a.sc, a.r.cfg
	sim := a.hooks.Simulation
	if sim == nil {
		sim = &record.Simulation{URL: cfg.UserURL, Model: cfg.UserModel, Turns: []record.SimulatedTurn{}}
		a.hooks.Simulation = sim
	}
	if m, done := sim.Message(n); done {
		return m, true, nil // an earlier process asked it: the same conversation goes on
	}
	left := sc.Turns() - n + 1
	if left <= 0 {
		sim.Ended, sim.Why = record.OutOfTurns, fmt.Sprintf("the simulated user sent %d message(s), its max_turns", sc.SimulatedTurns())
		return "", false, nil
	}
	fail := func(why string) (string, bool, *record.PhaseRecord) {
		sim.Ended, sim.Why = record.SimulatorFailed, why
		return "", false, &record.PhaseRecord{Ran: false, Turn: n, Script: "simulated user " + cfg.UserModel, ExitCode: -1, At: time.Now().UTC(),
			Error: "the simulated user failed, so the conversation cannot go on: " + why}
	}
	if rec, ok := cfg.GoAgent.(hook.Recorder); ok {
		// A recording is replayed: the user said what the recording holds, and no model is
		// asked to say it again.
		said, err := rec.Conversation(sc.ID)
		if err != nil {
			return fail(err.Error())
		}
		sim.URL, sim.Model = "", record.RecordingModel
		if n > len(said) {
			sim.Ended, sim.Why = record.RecordingEnded, fmt.Sprintf("the recorded conversation has %d turn(s)", len(said))
			return "", false, nil
		} else if said[n-1] != "" {
			msg = said[n-1]
		} else {
			msg = fmt.Sprintf("(turn %d: the recording holds no user message)", n)
		}
		sim.Turns = append(sim.Turns, record.SimulatedTurn{Turn: n, Message: msg, Answer: "from the recording"})
		a.unsaved = true
		return msg, true, nil
	}
	if cfg.User == nil {
		return fail("no model plays it: set ROOK_USER_URL and ROOK_USER_MODEL (or the judge's ROOK_JUDGE_URL and ROOK_JUDGE_MODEL)")
	}
	var so []simuser.Exchange
	for _, t := range turns {
		x := simuser.Exchange{User: a.turnInput(t.Turn)}
		if out, err := hook.FromData(t.Data, true); err == nil && out.HasReply {
			x.Agent = out.Reply
		} else {
			x.Unseen = true
		}
		so = append(so, x)
	}
	if a.log != nil {
		a.log(fmt.Sprintf("simulated user (turn %d): asking %s", n, cfg.UserModel))
	}
	step, err := simuser.Next(ctx, cfg.User, &sc.Scenario, n, left, so)
	sim.Turns = append(sim.Turns, step.Turn)
	a.unsaved = true
	switch {
	case err != nil:
		return fail(err.Error())
	case step.Ended != "" && n == len(sc.SetupMessages)+1 && len(sc.SetupMessages) == 0:
		return fail(fmt.Sprintf("it ended the conversation (%s: %s) before sending a message", step.Ended, step.Why))
	case step.Ended != "":
		sim.Ended, sim.Why = step.Ended, step.Why
		if a.log != nil {
			a.log(fmt.Sprintf("simulated user: %s after %d turn(s): %s", step.Ended, len(turns), step.Why))
		}
		return "", false, nil
	}
	return step.Message, true, nil
}

// turnInput is the user's message of turn n: the simulated user's when it wrote it, else
// the scenario's.
func (a *attemptRun) turnInput(n int) string {
	if m, ok := a.hooks.Simulation.Message(n); ok {
		return m
	}
	return a.sc.TurnInput(n)
}
