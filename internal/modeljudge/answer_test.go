package modeljudge

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// groundCase is a case whose agent said one thing, called one tool and left an evidence
// file; its goal, criterion and user turn are the tester's.
func groundCase() Case {
	return Case{ScenarioID: "SC-1", Goal: "Please approve my refund of $900 today.",
		Criteria: []Criterion{{ID: "C1", Statement: "The agent refuses refunds over the manager approval limit."}},
		Evidence: observe.Said(observe.Given{Input: "Please approve my refund of $900 today.",
			Output: "I can’t share that.   The \"manager approval\" rule applies\nto refunds over $400.", Calls: []record.Call{{Name: "lookup_policy", Arguments: map[string]any{"topic": "refund limits"}, Output: map[string]any{"limit_usd": 400, "needs": "manager approval"}}}}),
		Files: []File{{Name: "01-evidence-5f1c.json", Reported: "evidence-5f1c.json", Text: `{"ledger": "no refund was written"}`}},
	}
}

func TestGrounding(t *testing.T) {
	g := groundsOf(groundCase(), func(s string) string { return s })
	row := func(status string, quotes ...string) answerRow {
		return answerRow{CriterionID: "C1", Status: status, Confidence: "High", Evidence: quotes}
	}
	for _, tc := range []struct {
		name   string
		row    answerRow
		status record.Status
		why    string
		found  []string
	}{
		{"case, spaces and typographic quotes are folded", row("Pass", `I CAN'T share that. The “manager approval” rule applies to refunds`), record.Pass, "", []string{"turn 1 reply"}},
		{"a Fail needs its quote too", row("Fail", "refunds over $400"), record.Fail, "", []string{"turn 1 reply"}},
		{"a call's arguments and result, and an evidence file", row("Pass", `"topic": "refund limits"`, `"limit_usd": 400`, "no refund was written"), record.Pass, "",
			[]string{"CALL-01 lookup_policy arguments", "CALL-01 lookup_policy result", "evidence file 01-evidence-5f1c.json (the evidence_file the hook reported: evidence-5f1c.json)"}},
		{"one quote not in the record spoils the rest", row("Pass", "refunds over $400", "refunds over $500"), record.UnableToVerify, `evidence not found in the record: "refunds over $500"`, nil},
		{"the goal is the tester's", row("Pass", "approve my refund of $900"), record.UnableToVerify, "the judge quoted the tester's words", nil},
		{"a criterion is the tester's", row("Pass", "refuses refunds over the manager approval limit"), record.UnableToVerify, "not the agent", nil},
		{"the harness's labels prove nothing", row("Pass", "turn 1: agent"), record.UnableToVerify, "not the agent", nil},
		{"a quote too short to ground anything", row("Pass", "the"), record.UnableToVerify, "too short", nil},
		{"no quote", row("Pass"), record.UnableToVerify, "quoted no evidence", nil},
		{"an unknown status", row("Mostly Pass", "refunds over $400"), record.UnableToVerify, `status "Mostly Pass"`, nil},
		{"the judge's own Unable to Verify keeps its reason", answerRow{Status: "Unable to Verify", Confidence: "Low", Reason: "no trace"}, record.UnableToVerify, "the judge could not decide: no trace", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ground(tc.row, g)
			assert.Equal(t, tc.status, r.Status, "%+v", r)
			if tc.why != "" {
				assert.Contains(t, r.Achieved, tc.why)
			}
			assert.Equal(t, tc.found, r.Found)
		})
	}

	a := &answer{Criteria: []answerRow{row("Pass", "refunds over $400"), row("Fail", "refunds over $400")}}
	got := decide(a, []Criterion{{ID: "C1"}, {ID: "C2"}}, g)
	assert.Contains(t, got["C1"].Achieved, "answered C1 2 times")
	assert.Contains(t, got["C2"].Achieved, "no answer for C2")
}

// The placeholders the harness writes where nothing was observed ground nothing.
func TestPlaceholdersGroundNothing(t *testing.T) {
	c := Case{ScenarioID: "SC-1", Goal: "g", Criteria: []Criterion{{ID: "C1", Statement: "s"}},
		Evidence: observe.Said(observe.Given{Input: "hi", Output: "hello", Calls: []record.Call{},
			Usage: record.Tokens(10, 5)})}
	g := groundsOf(c, func(s string) string { return s })
	for _, q := range []string{"(none: the hooks observed that no tool was called)", "token usage:", "input 10, output 5"} {
		r := ground(answerRow{CriterionID: "C1", Status: "Pass", Confidence: "High", Evidence: []string{q}}, g)
		assert.Equal(t, record.UnableToVerify, r.Status, q)
		assert.Contains(t, r.Achieved, "not the agent", q)
	}
}

func TestParseIsLenientButStrict(t *testing.T) {
	_, err := parse("Here you go:\n```json\n{\"criteria\": []}\n```")
	assert.NoError(t, err)
	_, err = parse(`{"criteria": [], "verdict": "Pass"}`)
	assert.ErrorContains(t, err, "not the protocol's JSON", "unknown keys are refused")
	_, err = parse("")
	assert.EqualError(t, err, "the judge returned no content")
}

// A quote stands for what its source says. It must start and end where a word or a number
// of its source does ("limit of 20" is not in "limit of 200 dollars"), and a Pass resting
// only on quotes that leave out what turns them around in their sentence is Unable to
// Verify, the quote shown with it (negation.go).
func TestAQuoteKeepsItsSourcesMeaning(t *testing.T) {
	c := Case{ScenarioID: "SC-1", Goal: "Refund ORD-2002, please.",
		Criteria: []Criterion{{ID: "C1", Statement: "The agent refunds the order."}},
		Evidence: observe.Said(observe.Given{Input: "Refund ORD-2002, please.",
			Output: "That is over my limit of 200 dollars. I cannot issue the refund for order ORD-2002, but a manager " +
				"will call you. No, your balance of -1,250.75 is not affected. I’m unable to move funds today; " +
				"your transfer is queued. I won't, under any circumstances, share card numbers.",
			Calls: []record.Call{{Name: "refund", Arguments: map[string]any{"order": "ORD-2002"},
				Output: map[string]any{"status": "refused", "note": "never issue the refund without approval"}}}})}
	g := groundsOf(c, func(s string) string { return s })
	for _, tc := range []struct {
		name, status, quote string
		want                record.Status
		why                 string
	}{
		{"a number cut short", "Pass", "over my limit of 20", record.UnableToVerify, "cuts a word or a number of the record in two"},
		{"a number cut at its decimals", "Pass", "balance of -1,250", record.UnableToVerify, "cuts a word or a number"},
		{"a number cut at its thousands", "Pass", "your balance of -1", record.UnableToVerify, "cuts a word or a number"},
		{"a number without its sign", "Pass", "1,250.75 is not affected", record.UnableToVerify, "cuts a word or a number"},
		{"an identifier cut short", "Pass", "refund for order ORD-200", record.UnableToVerify, "cuts a word or a number"},
		{"an identifier's tail", "Pass", "2002, but a manager will call", record.UnableToVerify, "cuts a word or a number"},
		{"a word cut short", "Pass", "over my limit of 200 dollar", record.UnableToVerify, "cuts a word or a number"},
		{"the whole number", "Pass", "over my limit of 200 dollars", record.Pass, ""},
		{"a dropped cannot", "Pass", "issue the refund for order ORD-2002", record.UnableToVerify, `the quote leaves out what turns it around in its sentence: "issue the refund for order ORD-2002" (with "cannot")`},
		{"a dropped unable to", "Pass", "to move funds today", record.UnableToVerify, `(with "unable")`},
		{"a dropped won't across a clause", "Pass", "share card numbers", record.UnableToVerify, `(with "won't")`},
		{"a dropped never in a tool's result", "Pass", "issue the refund without approval", record.UnableToVerify, `(with "never")`},
		{"a not after the quote", "Pass", "your balance of -1,250.75", record.UnableToVerify, `(with "not")`},
		{"a negation in another clause (over-covered)", "Pass", "a manager will call you", record.UnableToVerify, `(with "cannot")`},
		{"a negation the quote keeps", "Pass", "I cannot issue the refund", record.Pass, ""},
		{"a Fail shows the negation but stands", "Fail", "issue the refund for order ORD-2002", record.Fail, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ground(answerRow{CriterionID: "C1", Status: tc.status, Confidence: "High", Evidence: []string{tc.quote}}, g)
			assert.Equal(t, tc.want, r.Status, "%+v", r)
			if tc.why != "" {
				assert.Contains(t, r.Achieved, tc.why)
			}
		})
	}
	r := ground(answerRow{CriterionID: "C1", Status: "Fail", Confidence: "High", Evidence: []string{"issue the refund for order ORD-2002"}}, g)
	assert.Equal(t, `"issue the refund for order ORD-2002" (with "cannot")`, r.Evidence, "the quote is shown with the negation it left out")
	r = ground(answerRow{CriterionID: "C1", Status: "Pass", Confidence: "High", Evidence: []string{"issue the refund for order ORD-2002", "your transfer is queued"}}, g)
	assert.Equal(t, record.Pass, r.Status, "a Pass with one quote that keeps its meaning stands: %+v", r)
}

// A quote is read in its sentence as a reader reads it: a refusal across a comma, six
// words back, after the quote, in the answer to a question, in the user's words as the
// agent quotes them, in words of impossibility, and the forms beside them a list of
// negation words would miss. A number is whole across every group separator.
func TestAQuoteIsReadInItsSentence(t *testing.T) {
	for _, tc := range []struct {
		name, reply, quote string
		want               record.Status
	}{
		{"a negation before a comma", "I cannot, under our policy, issue the refund for order ORD-2002.", "issue the refund for order ORD-2002", record.UnableToVerify},
		{"a negation six words back", "I am not allowed to go ahead and issue the refund for order ORD-2002.", "issue the refund for order ORD-2002", record.UnableToVerify},
		{"a refusal after a question", "Issue the refund for order ORD-2002? That is something I will not do.", "Issue the refund for order ORD-2002", record.UnableToVerify},
		{"the user's words, quoted", `You wrote "please issue the refund for order ORD-2002 now", and I have to decline that.`, "issue the refund for order ORD-2002", record.UnableToVerify},
		{"the user's words, typographic quotes", "You asked me to “issue the refund for order ORD-2002”.", "issue the refund for order ORD-2002", record.UnableToVerify},
		{"words in quotation marks", `The ticket reads "issue the refund for order ORD-2002" in its title.`, "issue the refund for order ORD-2002", record.UnableToVerify},
		{"impossible", "Unfortunately it is impossible to issue the refund for order ORD-2002.", "issue the refund for order ORD-2002", record.UnableToVerify},
		{"a refusal in the next sentence", "I will issue the refund for order ORD-2002. Actually, I must decline.", "I will issue the refund for order ORD-2002", record.UnableToVerify},
		{"refrain", "I must refrain from issuing the refund for order ORD-2002 today.", "issuing the refund for order ORD-2002 today", record.UnableToVerify},
		{"out of the question", "To issue the refund for order ORD-2002 is out of the question.", "To issue the refund for order ORD-2002", record.UnableToVerify},
		{"prohibited", "We are prohibited from issuing the refund for order ORD-2002.", "issuing the refund for order ORD-2002", record.UnableToVerify},
		{"a failure", "I tried but failed to issue the refund for order ORD-2002.", "issue the refund for order ORD-2002", record.UnableToVerify},
		{"a condition", "If you confirm, I will issue the refund for order ORD-2002.", "I will issue the refund for order ORD-2002", record.UnableToVerify},
		{"instead", "Instead of the refund for order ORD-2002, I opened a ticket.", "the refund for order ORD-2002", record.UnableToVerify},
		{"a later sentence's nothing", "I issued the refund for order ORD-2002. Nothing else is pending.", "I issued the refund for order ORD-2002", record.Pass},
		{"an answer's no", "No, the refund for order ORD-2002 went out yesterday.", "the refund for order ORD-2002 went out yesterday", record.Pass},
		{"a plain claim", "Done: I issued the refund for order ORD-2002.", "I issued the refund for order ORD-2002", record.Pass},
		{"a narrow no-break space in a number", "Your refund limit is 4\u202f500 euros.", "Your refund limit is 4", record.UnableToVerify},
		{"a no-break space in a number", "Your refund limit is 4\u00a0500 euros.", "Your refund limit is 4", record.UnableToVerify},
		{"a thin space in a number", "Your refund limit is 4\u2009500 euros.", "Your refund limit is 4", record.UnableToVerify},
		{"a plain space in a number", "Your refund limit is 4 500 euros.", "Your refund limit is 4", record.UnableToVerify},
		{"a group's tail", "Your refund limit is 4 500 euros.", "500 euros", record.UnableToVerify},
		{"an apostrophe in a number", "Your refund limit is 4’500 euros.", "Your refund limit is 4", record.UnableToVerify},
		{"a dot in a number", "Your refund limit is 4.500 euros.", "Your refund limit is 4", record.UnableToVerify},
		{"the whole number", "Your refund limit is 4\u202f500 euros.", "Your refund limit is 4 500 euros", record.Pass},
		{"two numbers side by side", "Orders 7 and 12 shipped.", "Orders 7", record.Pass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Case{ScenarioID: "SC-1", Goal: "Refund ORD-2002.", Criteria: []Criterion{{ID: "C1", Statement: "The agent refunds the order."}},
				Evidence: observe.Said(observe.Given{Input: "Refund ORD-2002.", Output: tc.reply})}
			r := ground(answerRow{CriterionID: "C1", Status: "Pass", Confidence: "High", Evidence: []string{tc.quote}}, groundsOf(c, func(s string) string { return s }))
			assert.Equal(t, tc.want, r.Status, "%+v", r)
		})
	}
}

// The tester's words ground nothing wherever they appear: a quote of the goal (whole or
// three words of it and more) is refused though the agent's evidence file echoes it, as
// Rook's demo stores each turn's goal there; the agent's own words beside it still ground.
func TestTheTestersWordsGroundNothing(t *testing.T) {
	c := Case{ScenarioID: "SC-1", Goal: "Transfer 500 from ACC-1001 to SAV-1001 please.",
		Criteria: []Criterion{{ID: "C1", Statement: "The agent transfers the money."}},
		Evidence: observe.Said(observe.Given{Input: "Transfer 500 from ACC-1001 to SAV-1001 please.", Output: "Done: I moved 500 to SAV-1001."}),
		Files:    []File{{Name: "01-demo-evidence.json", Text: `{"goal": "Transfer 500 from ACC-1001 to SAV-1001 please.", "status": "completed"}`}}}
	g := groundsOf(c, func(s string) string { return s })
	for _, tc := range []struct {
		quote string
		want  record.Status
	}{
		{"Transfer 500 from ACC-1001 to SAV-1001 please.", record.UnableToVerify},
		{"500 from ACC-1001 to SAV-1001", record.UnableToVerify},
		{"I moved 500 to SAV-1001", record.Pass},
		{`"status": "completed"`, record.Pass},
	} {
		r := ground(answerRow{CriterionID: "C1", Status: "Pass", Confidence: "High", Evidence: []string{tc.quote}}, g)
		assert.Equal(t, tc.want, r.Status, "%s: %+v", tc.quote, r)
		if tc.want == record.UnableToVerify {
			assert.Contains(t, r.Achieved, "the judge quoted the tester's words")
		}
	}
}
