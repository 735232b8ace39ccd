package modeljudge_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakejudge"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// Every request carries two or three controls, shuffled among the real criteria under ids
// that do not tell them apart: a judge that answers the real rows right and a control
// wrong decides nothing in that request, and the verdict counts the control it failed.
func TestAControlFailedDecidesNothing(t *testing.T) {
	for _, tc := range []struct {
		script string
		status record.Status
		failed int
	}{{fakejudge.GroundedPass, record.Pass, 0}, {fakejudge.WrongControl, record.UnableToVerify, 1}} {
		t.Run(tc.script, func(t *testing.T) {
			j, fake := newJudge(t, map[string]string{"SC-1": tc.script}, nil)
			d := j.Decide(context.Background(), caseFor("SC-1"))
			for _, id := range []string{"C2", "C3"} {
				r := d.Results[id]
				assert.Equal(t, tc.status, r.Status, "%s: %+v", id, r)
				if tc.failed > 0 {
					assert.Contains(t, r.Achieved, "the judge failed a control: it answered")
					assert.False(t, r.Unanswered, "the judge answered; it answered wrong")
				}
			}
			assert.Len(t, d.Results, 2, "controls never appear as criteria")
			assert.Equal(t, 2, d.Info.Controls)
			assert.Equal(t, tc.failed, d.Info.ControlsFailed)
			require.Len(t, fake.Requests("SC-1"), 1)
			prompt := fake.Requests("SC-1")[0].Prompt
			assert.Regexp(t, `(?m)^- Q[1-4]: The agent is polite\.$`, prompt)
			assert.NotRegexp(t, `(?m)^- C[0-9]+:`, prompt, "the scenario's ids are not sent")
			assert.Len(t, d.Info.Asked, 4)
			controls := 0
			for _, a := range d.Info.Asked {
				if strings.HasSuffix(a, " = a control") {
					controls++
				}
			}
			assert.Equal(t, 2, controls, "%v", d.Info.Asked)
		})
	}
}

// The same record gives the same request, controls and order included, so that an
// unchanged scenario is answered from the cache.
func TestTheSameRecordGivesTheSameRequest(t *testing.T) {
	j, fake := newJudge(t, nil, nil)
	j.Decide(context.Background(), caseFor("SC-1"))
	j.Decide(context.Background(), caseFor("SC-1"))
	reqs := fake.Requests("SC-1")
	require.Len(t, reqs, 2)
	assert.Equal(t, reqs[0].Prompt, reqs[1].Prompt)
}

// -rook.judge-samples=3: the status most samples gave, with the agreement; no majority is
// Unable to Verify, saying how the judge split. Servers that give n choices are asked once,
// those that ignore n once per sample.
func TestSamplesVote(t *testing.T) {
	for _, tc := range []struct {
		statuses  string
		ignoreN   bool
		status    record.Status
		agreement string
		requests  int
	}{
		{"Pass,Pass,Fail", false, record.Pass, "2/3", 1},
		{"Pass,Pass,Fail", true, record.Pass, "2/3", 3},
		{"Fail,Pass,Fail", false, record.Fail, "2/3", 1},
		{"Pass,Fail,Unable to Verify", false, record.UnableToVerify, "1/3", 1},
		{"Unable to Verify,Unable to Verify,Pass", false, record.UnableToVerify, "2/3", 1},
	} {
		t.Run(tc.statuses, func(t *testing.T) {
			j, fake := newJudge(t, map[string]string{"SC-1": fakejudge.SamplesPrefix + tc.statuses}, func(c *modeljudge.Config) { c.Samples = 3 })
			fake.IgnoreN = tc.ignoreN
			d := j.Decide(context.Background(), caseFor("SC-1"))
			r := d.Results["C2"]
			assert.Equal(t, tc.status, r.Status, "%+v", r)
			assert.Equal(t, tc.agreement, r.Agreement)
			if tc.statuses == "Pass,Fail,Unable to Verify" {
				assert.Equal(t, "the judge disagreed with itself over 3 samples: Fail 1, Pass 1, Unable to Verify 1", r.Achieved)
			}
			reqs := fake.Requests("SC-1")
			assert.Len(t, reqs, tc.requests)
			assert.EqualValues(t, 3, reqs[0].Body["n"])
			assert.Equal(t, 3, d.Info.Samples)
			assert.Equal(t, 6, d.Info.Controls, "two controls in each of three samples")
			require.NotNil(t, d.Info.Usage, "the judge's own usage is recorded")
			assert.Equal(t, int64(100*tc.requests), *d.Info.Usage.Input)
		})
	}
}

// A scripted judge that quotes the goal, the criterion or the record's own heading gets
// Unable to Verify; one that quotes the agent's reply gets its Pass, and the row says where
// the quote was found.
func TestAJudgeMustQuoteTheAgent(t *testing.T) {
	for _, tc := range []struct {
		script string
		status record.Status
	}{{fakejudge.QuoteGoal, record.UnableToVerify}, {fakejudge.QuoteCriterion, record.UnableToVerify},
		{fakejudge.QuoteLabel, record.UnableToVerify}, {fakejudge.GroundedPass, record.Pass}} {
		t.Run(tc.script, func(t *testing.T) {
			j, _ := newJudge(t, map[string]string{"SC-1": tc.script}, nil)
			r := j.Decide(context.Background(), caseFor("SC-1")).Results["C2"]
			assert.Equal(t, tc.status, r.Status, "%+v", r)
			if tc.status == record.Pass {
				assert.Equal(t, []string{"turn 1 reply"}, r.Found)
			} else {
				assert.Regexp(t, "the judge quoted the tester or the harness, not the agent|the judge quoted the tester's words", r.Achieved)
				assert.Empty(t, r.Found)
			}
			t.Logf("%s: %s: %s", tc.script, r.Status, r.Achieved)
		})
	}
}

// A record with nothing the agent or its tools produced gives no control: the request says
// why, and what the judge decides there is a step less certain.
func TestNoControlLowersConfidence(t *testing.T) {
	j, fake := newJudge(t, map[string]string{"SC-1": fakejudge.QuoteGoal}, nil)
	c := caseFor("SC-1")
	c.Evidence = observe.Said() // the agent never replied, its calls unobserved
	d := j.Decide(context.Background(), c)
	assert.Zero(t, d.Info.Controls)
	assert.Contains(t, d.Info.ControlsWhy, "the record holds nothing the agent or its tools produced")
	require.Len(t, fake.Requests("SC-1"), 1)

	with, _ := newJudge(t, map[string]string{"SC-1": fakejudge.Unsure}, nil)
	without, _ := newJudge(t, map[string]string{"SC-2": fakejudge.Unsure}, nil)
	checked := with.Decide(context.Background(), caseFor("SC-1"))
	bare := caseFor("SC-2")
	bare.Evidence = observe.Said(observe.Given{Input: "Refund order ORD-1.", Output: "done and done and done and done"})
	unchecked := without.Decide(context.Background(), bare)
	require.Equal(t, record.Pass, checked.Results["C2"].Status, "%+v", checked.Results["C2"])
	assert.Equal(t, "Medium", checked.Results["C2"].Confidence)
	assert.Positive(t, checked.Info.Controls)
	require.Zero(t, unchecked.Info.Controls, "a reply with no number or name and no observed calls: %v", unchecked.Info.Asked)
	require.Equal(t, record.Pass, unchecked.Results["C2"].Status, "%+v", unchecked.Results["C2"])
	assert.Equal(t, "Low", unchecked.Results["C2"].Confidence, "the judge said Medium; nothing checked it")
}

// -rook.judge-audit=100 asks every request again with the agent's evidence removed. A judge
// that answers Pass there is guessing: the audit says so, and every row it decides from
// then on is marked; a careful judge answers Unable to Verify there and nothing is marked.
// The audit's tokens count with the request's.
func TestTheAuditCatchesAGuessingJudge(t *testing.T) {
	for _, tc := range []struct {
		script  string
		guessed bool
	}{{fakejudge.Guesser, true}, {fakejudge.GroundedPass, false}} {
		t.Run(tc.script, func(t *testing.T) {
			j, fake := newJudge(t, map[string]string{"SC-1": tc.script, "SC-2": tc.script}, func(c *modeljudge.Config) { c.Audit = 100 })
			d := j.Decide(context.Background(), caseFor("SC-1"))
			require.NotNil(t, d.Info.Audit)
			reqs := fake.Requests("SC-1")
			require.Len(t, reqs, 2, "the request and its audit")
			assert.Contains(t, reqs[0].Prompt, "I have refunded order ORD-1")
			assert.NotContains(t, reqs[1].Prompt, "I have refunded order ORD-1", "the audit's record has no reply")
			assert.NotContains(t, reqs[1].Prompt, "issue_refund", "nor the calls")
			assert.Contains(t, reqs[1].Prompt, "Refund order ORD-1.", "the user's turn stays")
			require.NotNil(t, d.Info.Usage)
			assert.Greater(t, *d.Info.Usage.Input, *d.Info.Audit.Usage.Input, "the audit's tokens are in the request's usage")
			later := j.Decide(context.Background(), caseFor("SC-2"))
			if tc.guessed {
				assert.Equal(t, []string{"C2 Pass", "C3 Pass"}, d.Info.Audit.Guessed)
				assert.Equal(t, "SC-1: it answered C2 Pass, C3 Pass with the agent's evidence removed", j.Guessed())
			} else {
				assert.Empty(t, d.Info.Audit.Guessed)
				assert.Empty(t, j.Guessed())
			}
			for _, r := range []modeljudge.Result{d.Results["C2"], later.Results["C2"]} {
				assert.Equal(t, tc.guessed, r.Guessed)
				if !tc.guessed {
					assert.Equal(t, record.Pass, r.Status)
					continue
				}
				// A judge caught guessing decides nothing: not in the request it was
				// caught in, nor in a later one, which it is not even asked.
				assert.Equal(t, record.UnableToVerify, r.Status, "%+v", r)
				assert.Contains(t, r.Achieved, "the judge answered without the agent's evidence (an audit caught it: SC-1: it answered C2 Pass")
			}
			if tc.guessed {
				assert.Empty(t, fake.Requests("SC-2"), "a judge caught guessing is not asked again")
			}
		})
	}

	// A share audits about that share of requests, the same ones every time.
	j, fake := newJudge(t, nil, func(c *modeljudge.Config) { c.Audit = 25 })
	audited := 0
	for i := range 40 {
		c := caseFor(fmt.Sprintf("SC-%d", i))
		if d := j.Decide(context.Background(), c); d.Info.Audit != nil {
			audited++
			assert.Len(t, fake.Requests(c.ScenarioID), 2)
		}
	}
	assert.InDelta(t, 10, audited, 7, "25%% of 40 requests")
}

// Controls are built only from what the prompt shows of the record: a value in the part the
// evidence budget left out is in no control, since no judge could answer one about it.
func TestControlsComeFromWhatThePromptShows(t *testing.T) {
	j, fake := newJudge(t, nil, func(c *modeljudge.Config) { c.Budget = 1024 })
	c := caseFor("SC-1")
	c.Evidence = observe.Said(observe.Given{Input: "Refund order ORD-1.",
		Output: "Order ORD-1 is refunded by Harbour Bank. " + strings.Repeat("More words follow here. ", 200) + "Ticket TCK-9999 goes to Wellington."})
	for i := range 20 {
		c.ScenarioID = fmt.Sprintf("SC-%d", i)
		d := j.Decide(context.Background(), c)
		require.Positive(t, d.Info.Controls, "%v", d.Info.Cut)
		require.NotEmpty(t, d.Info.Cut, "the reply's end was left out")
		prompt := fake.Requests(c.ScenarioID)[0].Prompt
		for _, line := range strings.Split(prompt, "\n") {
			for _, hidden := range []string{"TCK-9999", "Wellington"} {
				assert.False(t, strings.HasPrefix(line, "- Q") && strings.Contains(line, hidden), "a control about %s, which the prompt left out: %s", hidden, line)
			}
		}
	}
}

// A reply of megabytes, one phrase repeated after a negation, is grounded and has its
// controls built in one pass over it: each occurrence's negation is looked for within a
// bounded reach, not back to the start.
func TestAHugeRepeatedReplyIsBounded(t *testing.T) {
	j, _ := newJudge(t, map[string]string{"SC-1": fakejudge.DropNegation}, nil)
	c := caseFor("SC-1")
	c.Evidence = observe.Said(observe.Given{Input: "Refund order ORD-1.", Output: strings.Repeat("I cannot issue the refund ", 200_000)})
	d := j.Decide(context.Background(), c)
	r := d.Results["C2"]
	assert.Equal(t, record.UnableToVerify, r.Status, "%+v", r)
	assert.Contains(t, r.Achieved, "the quote leaves out what turns it around in its sentence", "the judge's quote starts after a cannot")
}

// Where one of the request's own criteria claims a value the record shows, one control is
// that criterion with the value changed by a digit to one the prompt never shows (a twin):
// it reads as the criteria read because it is one of them, a careful judge answers it Fail,
// and a judge that passes what it cannot check fails it. A criterion that denies, bounds
// or compares is never twinned: its twin could hold.
func TestATwinIsOneOfTheRequestsOwnCriteria(t *testing.T) {
	criteria := []modeljudge.Criterion{
		{ID: "C1", Statement: "The post-transfer balance is USD 4800. Inspect the recorded customer-facing output."},
		{ID: "C2", Statement: "The reply must not contain ACC-1001."},
		{ID: "C3", Statement: "The answer costs at most 400 tokens."},
		{ID: "C4", Statement: "The transfer stays within the 5000 limit."},
	}
	twinRE := regexp.MustCompile(`(?m)^- Q\d+: (The post-transfer balance is USD (\d+)\. Inspect the recorded customer-facing output\.)$`)
	scripts := map[string]string{}
	for i := range 16 {
		scripts[fmt.Sprintf("SC-C%d", i)] = fakejudge.GroundedPass
		scripts[fmt.Sprintf("SC-P%d", i)] = fakejudge.PassAll
	}
	j, fake := newJudge(t, scripts, nil)
	twins := 0
	for i := range 16 {
		c := modeljudge.Case{ScenarioID: fmt.Sprintf("SC-C%d", i), Goal: fmt.Sprintf("Move 200 from ACC-1001 to savings, request %d.", i), Criteria: criteria,
			Evidence: observe.Said(observe.Given{Input: "Move 200 from ACC-1001 to savings.", Output: "Done: the post-transfer balance on ACC-1001 is USD 4800, and 5000 is your daily limit."})}
		careful := j.Decide(context.Background(), c)
		prompt := fake.Requests(c.ScenarioID)[0].Prompt
		var made []string
		for _, m := range twinRE.FindAllStringSubmatch(prompt, -1) {
			if m[2] != "4800" {
				made = append(made, m[2])
				assert.NotContains(t, strings.ReplaceAll(prompt, m[1], ""), m[2], "a twin's value is nowhere else in the prompt")
			}
		}
		for _, kept := range criteria[1:] {
			shape := regexp.MustCompile(`(?m)^- Q\d+: ` + regexp.MustCompile(`\d+`).ReplaceAllString(regexp.QuoteMeta(kept.Statement), `\d+`) + `$`)
			for _, line := range shape.FindAllString(prompt, -1) {
				assert.True(t, strings.HasSuffix(line, ": "+kept.Statement), "twinned: %s", line)
			}
		}
		if !assert.Zero(t, careful.Info.ControlsFailed, "a careful judge fails no control: %v", careful.Info.Asked) {
			t.Log(prompt, careful.Results)
		}
		if len(made) == 0 {
			continue
		}
		twins++
		require.Len(t, made, 1)
		assert.Equal(t, record.Pass, careful.Results["C1"].Status)
		c.ScenarioID = fmt.Sprintf("SC-P%d", i)
		passAll := j.Decide(context.Background(), c)
		assert.Positive(t, passAll.Info.ControlsFailed, "a judge that passes everything passes the twin")
		assert.Equal(t, record.UnableToVerify, passAll.Results["C1"].Status)
	}
	assert.GreaterOrEqual(t, twins, 8, "most requests carry a twin where a criterion can have one")
}

// controlStatements are the controls of the requests made for c under ids SC-<i>, i <
// n, with the careful judge's verdict on each request.
func controlStatements(t *testing.T, c modeljudge.Case, n int) (controls []string, failed int) {
	t.Helper()
	j, fake := newJudge(t, nil, nil)
	for i := range n {
		c.ScenarioID = fmt.Sprintf("SC-%d", i)
		d := j.Decide(context.Background(), c)
		failed += d.Info.ControlsFailed
		ctl, _ := asked(t, fake, c.ScenarioID, d)
		controls = append(controls, ctl...)
	}
	return controls, failed
}

// asked are the statements of the last request the judge sent for scenario, controls and
// criteria apart, as d's asked map tells them.
func asked(t *testing.T, fake *fakejudge.Server, scenario string, d modeljudge.Decision) (controls, criteria []string) {
	t.Helper()
	reqs := fake.Requests(scenario)
	require.NotEmpty(t, reqs)
	statements := map[string]string{}
	for _, m := range statementRE.FindAllStringSubmatch(reqs[len(reqs)-1].Prompt, -1) {
		statements[m[1]] = m[2]
	}
	for _, a := range d.Info.Asked {
		if id, what, _ := strings.Cut(a, " = "); what == "a control" {
			controls = append(controls, statements[id])
		} else {
			criteria = append(criteria, statements[id])
		}
	}
	return controls, criteria
}

var statementRE = regexp.MustCompile(`(?m)^- (Q\d+): (.*)$`)

// Collect fetches the run's traces, calls and usage beside the evidence of what the agent
// did. A control is made of that evidence, as criteria judge it: never of a span's name
// or of collect's own count of tokens, which the record shows merged with the turns'
// (a reader of the merged "token usage" would read collect's 389 as false). A nested value
// is named with its object's key, as a reader says it ("the effects destination").
func TestControlsLeaveTheRunsTelemetryAlone(t *testing.T) {
	obs := observe.Said(observe.Given{Input: "Move 200 to savings.", Output: "Done.", Usage: &record.Usage{Input: new(int64(20)), Output: new(int64(9))}})
	obs.CollectReport(map[string]any{
		"usage":  map[string]any{"input": 389, "output": 57},
		"traces": []any{map[string]any{"name": "Everyday Banking Assistant", "durationMs": 9508, "status": "ok"}},
		"output": `{"effects": [{"id": "transfer-1", "type": "transfer", "to": "SAV-1001", "from": "ACC-1001", "amount": 200}]}`,
	})
	c := modeljudge.Case{Goal: "Move 200 to savings.", Evidence: obs,
		Criteria: []modeljudge.Criterion{{ID: "C1", Statement: "Exactly one transfer exists. Verify the session-correlated effects in the collected data."}}}
	controls, failed := controlStatements(t, c, 24)
	require.NotEmpty(t, controls)
	assert.Zero(t, failed, "the careful judge answers every control as the record does: %q", controls)
	nested := 0
	for _, s := range controls {
		for _, telemetry := range []string{"389", "57", "Everyday Banking Assistant", "9508"} {
			assert.NotContains(t, s, telemetry, "a control made of the run's telemetry")
		}
		if regexp.MustCompile(`\beffects (destination|source|amount|identifier)\b`).MatchString(s) {
			nested++
		}
	}
	assert.Positive(t, nested, "controls name the effects' values under their keys: %q", controls)
}

// A control is made first of what the request's criteria speak of: of the replies where
// they judge replies, of the tool calls where they judge calls, so that it tests the
// reading the criteria need and reads as they do.
func TestControlsSpeakOfWhatTheCriteriaSpeakOf(t *testing.T) {
	ev := observe.Said(observe.Given{Input: "Where is my order?",
		Output: "Order ORD-1001 left Leeds on Tuesday with DHL and arrives Thursday.",
		Calls: []record.Call{{Name: "lookup_order", Arguments: map[string]any{"order": "ORD-1001"},
			Output: map[string]any{"carrier": "DHL", "eta": "Thursday", "depot": "Leeds", "weight_kg": 3}}}})
	kindsOf := func(controls []string) map[string]int {
		out := map[string]int{}
		for _, s := range controls {
			ctl, ok := modeljudge.ReadControl(s)
			require.True(t, ok, "a control reads back: %q", s)
			out[ctl.Kind]++
		}
		return out
	}
	replies, failed := controlStatements(t, modeljudge.Case{Goal: "Where is my order?", Evidence: ev,
		Criteria: []modeljudge.Criterion{{ID: "C1", Statement: "The reply names the expected delivery day."}}}, 16)
	assert.Zero(t, failed)
	got := kindsOf(replies)
	assert.Equal(t, len(replies), got["reply"], "criteria about the reply get controls about the reply: %q", replies)

	calls, failed := controlStatements(t, modeljudge.Case{Goal: "Where is my order?", Evidence: ev,
		Criteria: []modeljudge.Criterion{{ID: "C1", Statement: "The agent looks the order up with a tool first."}}}, 16)
	assert.Zero(t, failed)
	got = kindsOf(calls)
	assert.Zero(t, got["reply"], "criteria about tool calls get controls about the calls: %q", calls)
	assert.Positive(t, got["called"]+got["argument"]+got["result"])
}

// A statement reads as a control only where it names a value as controls name one (a
// number, an identifier or a name, a plain word quoted); a criterion's description of what
// a reply should hold is no control's value, and the scripted careful judge leaves it to
// the script.
func TestACriterionsDescriptionIsNoControlsValue(t *testing.T) {
	for s, want := range map[string]string{
		"The reply names Thursday.":                                      "Thursday",
		"The reply does not include ORD-3007.":                           "ORD-3007",
		`The response includes "updated".`:                               "updated",
		"The reply names 4\u202f500.":                                    "4 500", // its spaces read as spaces
		"The reply names the expected delivery day.":                     "",
		"The reply does not include another customer email.":             "",
		"The reply gives the order's actual status rather than a guess.": "",
	} {
		c, ok := modeljudge.ReadControl(s)
		if want == "" {
			assert.False(t, ok && c.Kind == "reply", "%q reads as a control: %+v", s, c)
			continue
		}
		if assert.True(t, ok, s) {
			assert.Equal(t, "reply", c.Kind, s)
			assert.Equal(t, want, c.Value, s)
		}
	}
}
