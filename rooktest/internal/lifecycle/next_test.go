package lifecycle_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/spec"
	. "github.com/rookgo/rookgo/rooktest/internal/lifecycle"
)

var update = flag.Bool("update", false, "rewrite testdata/next.golden")

func selection(names string) Selection {
	s := Selection{}
	for _, n := range strings.Split(names, ",") {
		if n != "" {
			s[spec.Phase(n)] = true
		}
	}
	return s
}

// TestNext is the table of what an attempt does next, for recorded states a run meets
// (fresh, stopped after close, killed in a hook, failed in each phase) and the selections
// a process is started with. It reads as the rules of continuation; -v prints it, and
// testdata/next.golden holds it (go test -run Next -update rewrites it).
func TestNext(t *testing.T) {
	all := "prepare,open,execute,close,collect,judge"
	selections := []string{all, "prepare,open,execute,close", "open,execute,close,collect,judge", "execute,close,collect,judge", "collect,judge", "judge"}
	states := []State{
		{Open: None, Execute: None, Close: None, Collect: None},
		{Open: Undefined, Execute: None, Close: Undefined, Collect: Undefined},
		{Open: Succeeded, Execute: None, Close: None, Collect: None},
		{Open: Succeeded, Execute: None, Close: None, Collect: None, Interrupted: spec.Execute},
		{Open: None, Execute: None, Close: None, Collect: None, Interrupted: spec.Open},
		{Open: Failed, Execute: None, Close: None, Collect: None},
		{Open: Failed, Execute: None, Close: Succeeded, Collect: None},
		{Open: Succeeded, Execute: Partial, Close: None, Collect: None},
		{Open: Succeeded, Execute: Failed, Close: None, Collect: None},
		{Open: Succeeded, Execute: Failed, Close: Succeeded, Collect: Succeeded},
		{Open: Succeeded, Execute: Succeeded, Close: None, Collect: None},
		{Open: Succeeded, Execute: Succeeded, Close: None, Collect: None, Interrupted: spec.Close},
		{Open: Succeeded, Execute: Succeeded, Close: Succeeded, Collect: None},
		{Open: Succeeded, Execute: Succeeded, Close: Failed, Collect: None},
		{Open: Succeeded, Execute: Succeeded, Close: Succeeded, Collect: None, Interrupted: spec.Collect},
		{Open: Succeeded, Execute: Succeeded, Close: Succeeded, Collect: Failed},
		{Open: Succeeded, Execute: Succeeded, Close: Succeeded, Collect: Succeeded},
		{Open: Undefined, Execute: Succeeded, Close: Undefined, Collect: Undefined},
		// What this process ran is final: a failure here is not retried in a loop.
		{Open: Failed, Execute: None, Close: None, Collect: None, Here: selection("open")},
		{Open: Succeeded, Execute: Failed, Close: None, Collect: None, Here: selection("open,execute")},
		{Open: Succeeded, Execute: Succeeded, Close: Succeeded, Collect: Failed, Here: selection("collect")},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-86s | %-33s | %s\n", "recorded state", "selection", "next step")
	for _, s := range states {
		for _, sel := range selections {
			step := Next(s, selection(sel), "R")
			fmt.Fprintf(&b, "%-86s | %-33s | %s\n", s, sel, step)
		}
	}
	t.Log("\n" + b.String())
	golden := filepath.Join("testdata", "next.golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	assert.Equal(t, string(want), b.String(), "the rules of continuation changed; review the table and rerun with -update")

	// The rows everything else rests on.
	fresh := states[0]
	assert.Equal(t, Step{Action: RunPhase, Phase: spec.Open}, Next(fresh, selection(all), "R"))
	assert.Equal(t, Step{Action: Restart}, Next(states[3], selection(all), "R"), "killed during execute: start again from open")
	assert.Equal(t, Refuse, Next(states[3], selection("execute,close,collect,judge"), "R").Action, "never resume mid-conversation")
	assert.Equal(t, Step{Action: RunPhase, Phase: spec.Collect}, Next(states[15], selection("collect,judge"), "R"), "a failed collect is retried")
	assert.Equal(t, Step{Action: RunPhase, Phase: spec.Close}, Next(states[19], selection(all), "R"), "an execute failed here is closed, not rerun")
	assert.Equal(t, Step{Action: Judge}, Next(states[20], selection(all), "R"), "a collect failed here is judged, not rerun")
}
