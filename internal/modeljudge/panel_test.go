package modeljudge_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakejudge"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/modeljudge/judgehttp"
	"github.com/rookgo/rookgo/internal/record"
)

// kitScripts are a careful judge's scripts for the kit: each request's known answer, the
// controls answered as the record shows.
func kitScripts() map[string]string {
	scripts := map[string]string{}
	for _, it := range modeljudge.Kit() {
		scripts[it.Case.ScenarioID] = fakejudge.GroundedPass
		for _, want := range it.Want {
			switch want {
			case record.Fail:
				scripts[it.Case.ScenarioID] = fakejudge.GroundedFail
			case record.UnableToVerify:
				scripts[it.Case.ScenarioID] = fakejudge.SamplesPrefix + string(record.UnableToVerify)
			}
		}
	}
	return scripts
}

// panelOf is a panel of scripted judge servers on loopback, each with its model name.
func panelOf(t *testing.T, rule string, members map[string]*fakejudge.Server) *modeljudge.Judge {
	t.Helper()
	cfg := modeljudge.Config{Transport: judgehttp.New(), Timeout: time.Minute, Retries: 1, Backoff: 10 * time.Millisecond, Rule: rule}
	for _, name := range []string{"careful-a", "careful-b", "careless", "careful-c"} {
		fake, ok := members[name]
		if !ok {
			continue
		}
		srv := httptest.NewServer(fake)
		t.Cleanup(srv.Close)
		cfg.Panel = append(cfg.Panel, modeljudge.Member{URL: srv.URL + "/v1", Model: name})
	}
	return modeljudge.New(cfg)
}

// A panel of three judges, one careless (Pass to every statement, controls included),
// decides the judge kit as its careful members do: the careless one is out of every
// request whose controls it fails, and the report says so, member by member, with each
// pair's agreement on the controls and the panel's effective number of independent votes.
func TestAPanelLeavesOutTheMemberThatFailsItsControls(t *testing.T) {
	careless := fakejudge.New(map[string]string{})
	careless.Default = fakejudge.PassAll
	j := panelOf(t, modeljudge.RuleMajority, map[string]*fakejudge.Server{
		"careful-a": fakejudge.New(kitScripts()), "careful-b": fakejudge.New(kitScripts()), "careless": careless})
	assert.Equal(t, "panel of 3 (careful-a, careful-b, careless)", j.Model())

	var rep record.Report
	right, asked := 0, 0
	for _, it := range modeljudge.Kit() {
		d := j.Decide(context.Background(), it.Case)
		require.NotNil(t, d.Info.Panel, it.Case.ScenarioID)
		members := d.Info.Panel.Members
		require.Len(t, members, 3)
		assert.Empty(t, members[0].Out, "%s: careful-a: %s", it.Case.ScenarioID, members[0].Out)
		assert.Empty(t, members[1].Out, "%s: careful-b: %s", it.Case.ScenarioID, members[1].Out)
		for id, want := range it.Want {
			asked++
			if d.Results[id].Status == want {
				right++
			}
			assert.Equal(t, want, d.Results[id].Status, "%s %s: %+v", it.Case.ScenarioID, id, d.Results[id])
		}
		rep.AddJudge(&record.Verdict{Judge: &d.Info})
	}
	assert.Equal(t, asked, right, "the careful majority decides every criterion of the kit")

	p := rep.Panel
	require.NotNil(t, p)
	byModel := map[string]record.PanelMemberTotals{}
	for _, m := range p.Members {
		byModel[m.Model] = m
	}
	n := len(modeljudge.Kit())
	assert.Equal(t, n, byModel["careless"].Requests)
	assert.Positive(t, byModel["careless"].Out, "out of the requests whose controls it failed")
	assert.Less(t, byModel["careless"].ControlsRight, byModel["careless"].Controls)
	assert.Zero(t, byModel["careful-a"].Out)
	assert.Equal(t, byModel["careful-a"].Controls, byModel["careful-a"].ControlsRight)
	require.NotNil(t, p.EffectiveVotes, p.EffectiveWhy)
	// The careful pair agree on every control (kappa 1); the careless one agrees with them
	// no better than chance on the controls it answers Pass to all of.
	for _, pair := range p.Pairs {
		require.NotNil(t, pair.Kappa, "%s-%s", pair.A, pair.B)
		if pair.A == "careful-a" && pair.B == "careful-b" {
			assert.InDelta(t, 1, *pair.Kappa, 1e-9)
		} else {
			assert.LessOrEqual(t, *pair.Kappa, 0.0, "%s-%s", pair.A, pair.B)
		}
	}
	assert.InDelta(t, 3/(1+2*(1.0/3)), *p.EffectiveVotes, 0.01, "n/(1+(n-1)r) with r the mean of (1, 0, 0)")
	t.Logf("panel: %s; careless out of %d of %d requests, %d of %d controls right", p, byModel["careless"].Out, n,
		byModel["careless"].ControlsRight, byModel["careless"].Controls)
}

// The rule decides over the members still in: a majority of two to one decides, a tie or a
// split under unanimous is Unable to Verify, and a panel whose every member is out decides
// nothing, saying why.
func TestAPanelsRule(t *testing.T) {
	c := modeljudge.Kit()[0].Case // a request whose real criteria the scripts answer
	server := func(script string) *fakejudge.Server {
		s := fakejudge.New(map[string]string{})
		s.Default = script
		return s
	}
	for _, tc := range []struct {
		name    string
		rule    string
		members map[string]*fakejudge.Server
		want    record.Status
		why     string
	}{
		{"two Pass to one Fail", modeljudge.RuleMajority, map[string]*fakejudge.Server{"careful-a": server(fakejudge.GroundedPass),
			"careful-b": server(fakejudge.GroundedPass), "careful-c": server(fakejudge.GroundedFail)}, record.Pass, ""},
		{"one Pass, one Fail", modeljudge.RuleMajority, map[string]*fakejudge.Server{"careful-a": server(fakejudge.GroundedPass),
			"careful-b": server(fakejudge.GroundedFail)}, record.UnableToVerify, "the panel (no majority) split over 2 member(s) still in: Fail 1, Pass 1"},
		{"not unanimous", modeljudge.RuleUnanimous, map[string]*fakejudge.Server{"careful-a": server(fakejudge.GroundedPass),
			"careful-b": server(fakejudge.GroundedPass), "careful-c": server(fakejudge.GroundedFail)}, record.UnableToVerify, "the panel (not unanimous) split"},
		{"every member out", modeljudge.RuleMajority, map[string]*fakejudge.Server{"careful-a": server(fakejudge.Garbage),
			"careless": server(fakejudge.PassAll)}, record.UnableToVerify, "every member of the panel was out of this request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := panelOf(t, tc.rule, tc.members).Decide(context.Background(), c)
			for _, cr := range c.Criteria {
				r := d.Results[cr.ID]
				assert.Equal(t, tc.want, r.Status, "%+v", r)
				assert.Contains(t, r.Achieved, tc.why)
			}
		})
	}
}
