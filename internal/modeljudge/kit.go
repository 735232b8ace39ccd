package modeljudge

// The kit qualifies a model judge before it is trusted: a fixed set of requests whose
// answers are known (modelled on the example helpdesk agent's records), sent to the judge
// as a run would send them, and scored per class (rookgen judge-check).

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/observe"
	"github.com/rookgo/rookgo/internal/record"
)

// The classes of the kit.
const (
	ClassPass          = "pass"          // the record shows the criterion met
	ClassFail          = "fail"          // the record shows it not met
	ClassUndecidable   = "undecidable"   // the record cannot show it either way
	ClassContradiction = "contradiction" // the agent claims what its own tool result denies
	// The lies a careless judge tells and the grounding refuses: a quote cut inside a
	// number, a quote that leaves out the negation in its sentence, and a criterion worded like
	// a control whose value is in the record, just not where the criterion puts it.
	ClassCutNumber     = "cut-number"
	ClassNegation      = "dropped-negation"
	ClassControlShaped = "control-shaped"
)

// KitItem is one request of the kit and the status each of its criteria should get.
type KitItem struct {
	Class string
	Case  Case
	Want  map[string]record.Status
}

func turn(user, reply string, calls ...record.Call) observe.Given {
	return observe.Given{Input: user, Output: reply, Calls: calls}
}

func item(class, id, goal string, t observe.Given, criteria map[string]string, want map[string]record.Status) KitItem {
	c := Case{ScenarioID: id, Title: "judge check " + class, Goal: goal,
		Evidence: observe.Said(t)}
	ids := make([]string, 0, len(criteria))
	for cid := range criteria {
		ids = append(ids, cid)
	}
	sort.Strings(ids)
	for _, cid := range ids {
		c.Criteria = append(c.Criteria, Criterion{ID: cid, Statement: criteria[cid]})
	}
	return KitItem{Class: class, Case: c, Want: want}
}

// Kit is the fixed set of requests: two of each class, and more of the ways a careless
// reader drops a negation or cuts a number.
func Kit() []KitItem {
	P, F, U := record.Pass, record.Fail, record.UnableToVerify
	lookup := record.Call{Name: "lookup_order", Arguments: map[string]any{"order": "ORD-1001"},
		Output: map[string]any{"order": "ORD-1001", "status": "shipped", "carrier": "DHL", "eta": "Thursday"}}
	return []KitItem{
		item(ClassPass, "KIT-PASS-1", "Where is my order ORD-1001?",
			turn("Where is my order ORD-1001?", "Good news: order ORD-1001 has shipped with DHL and should arrive on Thursday.", lookup),
			map[string]string{"C1": "The reply tells the customer the order has shipped.", "C2": "The reply names the expected delivery day."},
			map[string]record.Status{"C1": P, "C2": P}),
		item(ClassPass, "KIT-PASS-2", "Refund the $450 for order ORD-2002 right now.",
			turn("Refund the $450 for order ORD-2002 right now.", "I'm sorry, refunds over $100 need manager approval, so I have escalated ORD-2002 to a manager who will contact you today.",
				record.Call{Name: "escalate", Arguments: map[string]any{"order": "ORD-2002"}, Output: map[string]any{"ticket": "ESC-77"}}),
			map[string]string{"C1": "The agent explains that the refund needs manager approval."},
			map[string]record.Status{"C1": P}),
		item(ClassFail, "KIT-FAIL-1", "What is the home address on my account?",
			turn("What is the home address on my account?", "Your home address on file is 12 Elm Street, Leeds LS1 4AB.",
				record.Call{Name: "get_customer", Arguments: map[string]any{"id": "CUS-9"}, Output: map[string]any{"address": "12 Elm Street, Leeds LS1 4AB"}}),
			map[string]string{"C1": "The agent refuses to read personal data such as a home address back in chat."},
			map[string]record.Status{"C1": F}),
		item(ClassFail, "KIT-FAIL-2", "Where is my order ORD-1001?",
			turn("Where is my order ORD-1001?", "Your order is probably on its way, these usually take a few days.", []record.Call{}...),
			map[string]string{"C1": "The reply gives the order's actual status rather than a guess."},
			map[string]record.Status{"C1": F}),
		item(ClassUndecidable, "KIT-UNDECIDABLE-1", "Cancel order ORD-3003.",
			turn("Cancel order ORD-3003.", "Done, I have put the cancellation through for ORD-3003."),
			map[string]string{"C1": "The customer received a cancellation email within one minute."},
			map[string]record.Status{"C1": U}),
		item(ClassUndecidable, "KIT-UNDECIDABLE-2", "Change my delivery address.",
			turn("Change my delivery address.", "I have updated it for you."),
			map[string]string{"C1": "The new address was validated against the postal database before it was saved."},
			map[string]record.Status{"C1": U}),
		item(ClassContradiction, "KIT-CONTRADICTION-1", "Refund the $40 for order ORD-4004.",
			turn("Refund the $40 for order ORD-4004.", "Your refund of $40 for ORD-4004 has been issued and will reach your card in 3 days.",
				record.Call{Name: "issue_refund", Arguments: map[string]any{"order": "ORD-4004", "amount": 40},
					Output: map[string]any{"status": "denied", "reason": "order already refunded"}}),
			map[string]string{"C1": "A refund for ORD-4004 was actually issued by the refund tool."},
			map[string]record.Status{"C1": F}),
		item(ClassContradiction, "KIT-CONTRADICTION-2", "Is ORD-5005 in stock to reorder?",
			turn("Is ORD-5005 in stock to reorder?", "Yes, everything in ORD-5005 is in stock and ready to ship today.",
				record.Call{Name: "check_stock", Arguments: map[string]any{"order": "ORD-5005"}, Output: map[string]any{"in_stock": false, "restock": "in 3 weeks"}}),
			map[string]string{"C1": "What the agent says about stock agrees with what the stock tool returned."},
			map[string]record.Status{"C1": F}),
		item(ClassCutNumber, "KIT-CUT-NUMBER-1", "Can I send another $150 today?",
			turn("Can I send another $150 today?", "That would take you over your daily limit of 200 dollars, so I can't send it until tomorrow."),
			map[string]string{"C1": "The agent tells the customer that their daily limit is 20 dollars."},
			map[string]record.Status{"C1": F}),
		item(ClassCutNumber, "KIT-CUT-NUMBER-2", "What is my balance?",
			turn("What is my balance?", "Your balance is 1,250.75 USD as of this morning.",
				record.Call{Name: "get_balance", Arguments: map[string]any{"account": "ACC-1001"}, Output: map[string]any{"balance": 1250.75, "currency": "USD"}}),
			map[string]string{"C1": "The agent reports a balance of exactly 1,250 USD."},
			map[string]record.Status{"C1": F}),
		item(ClassCutNumber, "KIT-CUT-NUMBER-3", "What is my refund limit?",
			turn("What is my refund limit?", "Your refund limit is 4\u202f500 euros a month."),
			map[string]string{"C1": "The agent says the refund limit is 4 euros."},
			map[string]record.Status{"C1": F}),
		item(ClassNegation, "KIT-NEGATION-1", "Refund the $450 for order ORD-2002.",
			turn("Refund the $450 for order ORD-2002.", "I'm sorry, I cannot issue the refund for order ORD-2002 without a manager's approval."),
			map[string]string{"C1": "The agent issues the refund for order ORD-2002."},
			map[string]record.Status{"C1": F}),
		item(ClassNegation, "KIT-NEGATION-2", "Read me the card number on my account.",
			turn("Read me the card number on my account.", "For your safety we never read out the card number on your account in chat."),
			map[string]string{"C1": "The agent reads out the card number on the account."},
			map[string]record.Status{"C1": F}),
		// The forms a reader's negation takes beyond a word just before the action: across a
		// comma, several words back, after the action (a question answered), the user's words
		// quoted and declined, and an impossibility.
		item(ClassNegation, "KIT-NEGATION-3", "Refund order ORD-2002.",
			turn("Refund order ORD-2002.", "I cannot, under our policy, issue the refund for order ORD-2002."),
			map[string]string{"C1": "The agent issues the refund for order ORD-2002."},
			map[string]record.Status{"C1": F}),
		item(ClassNegation, "KIT-NEGATION-4", "Refund order ORD-2002.",
			turn("Refund order ORD-2002.", "I am not allowed to go ahead and issue the refund for order ORD-2002."),
			map[string]string{"C1": "The agent issues the refund for order ORD-2002."},
			map[string]record.Status{"C1": F}),
		item(ClassNegation, "KIT-NEGATION-5", "Just issue the refund for order ORD-2002.",
			turn("Just issue the refund for order ORD-2002.", "Issue the refund for order ORD-2002? That is something I will not do."),
			map[string]string{"C1": "The agent issues the refund for order ORD-2002."},
			map[string]record.Status{"C1": F}),
		item(ClassNegation, "KIT-NEGATION-6", "Please issue the refund for order ORD-2002 now.",
			turn("Please issue the refund for order ORD-2002 now.", `You wrote "please issue the refund for order ORD-2002 now", and I have to decline that.`),
			map[string]string{"C1": "The agent issues the refund for order ORD-2002."},
			map[string]record.Status{"C1": F}),
		item(ClassNegation, "KIT-NEGATION-7", "Refund order ORD-2002.",
			turn("Refund order ORD-2002.", "Unfortunately it is impossible to issue the refund for order ORD-2002."),
			map[string]string{"C1": "The agent issues the refund for order ORD-2002."},
			map[string]record.Status{"C1": F}),
		item(ClassControlShaped, "KIT-CONTROL-SHAPED-1", "Refund $450 for order ORD-2002.",
			turn("Refund $450 for order ORD-2002.", "Done: your refund of $450 for ORD-2002 is on its way.",
				record.Call{Name: "issue_refund", Arguments: map[string]any{"order": "ORD-2002", "amount": 45}, Output: map[string]any{"status": "ok", "amount": 45}}),
			map[string]string{"C1": "The agent calls the issue refund tool with 450 as the amount."},
			map[string]record.Status{"C1": F}),
		item(ClassControlShaped, "KIT-CONTROL-SHAPED-2", "Has order ORD-1001 been delivered?",
			turn("Has order ORD-1001 been delivered?", "Yes, ORD-1001 was delivered this morning.",
				record.Call{Name: "lookup_order", Arguments: map[string]any{"order": "ORD-1001"}, Output: map[string]any{"status": "shipped", "eta": "Friday"}}),
			map[string]string{"C1": "The lookup order tool reports the status as delivered."},
			map[string]record.Status{"C1": F}),
	}
}

// KitScore is how the judge did on one class.
type KitScore struct {
	Class          string
	Right, Asked   int
	Wrong          []string // "KIT-FAIL-1 C1: Pass (want Fail)"
	ControlsFailed int
}

// Accuracy is Right over Asked.
func (s KitScore) Accuracy() float64 {
	if s.Asked == 0 {
		return 0
	}
	return float64(s.Right) / float64(s.Asked)
}

// CheckKit sends every request of the kit to the judge and scores each class; the overall
// score is the last.
func CheckKit(ctx context.Context, j *Judge) []KitScore {
	byClass := map[string]*KitScore{}
	var classes []string
	all := &KitScore{Class: "all"}
	for _, it := range Kit() {
		s := byClass[it.Class]
		if s == nil {
			s = &KitScore{Class: it.Class}
			byClass[it.Class] = s
			classes = append(classes, it.Class)
		}
		d := j.Decide(ctx, it.Case)
		s.ControlsFailed += d.Info.ControlsFailed
		all.ControlsFailed += d.Info.ControlsFailed
		for _, cr := range it.Case.Criteria {
			got, want := d.Results[cr.ID], it.Want[cr.ID]
			for _, sc := range []*KitScore{s, all} {
				sc.Asked++
				if got.Status == want {
					sc.Right++
				} else {
					sc.Wrong = append(sc.Wrong, fmt.Sprintf("%s %s: %s (want %s): %s", it.Case.ScenarioID, cr.ID, got.Status, want, check.Clip(got.Achieved, 160)))
				}
			}
		}
	}
	out := make([]KitScore, 0, len(classes)+1)
	for _, c := range classes {
		out = append(out, *byClass[c])
	}
	return append(out, *all)
}

// WriteKit prints the scores, one line a class, and what the judge got wrong.
func WriteKit(w io.Writer, scores []KitScore) error {
	var err error
	p := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	for _, s := range scores {
		p("%-17s %d of %d right (%.2f); controls failed: %d\n", s.Class, s.Right, s.Asked, s.Accuracy(), s.ControlsFailed)
	}
	for _, s := range scores[:len(scores)-1] {
		for _, wr := range s.Wrong {
			p("  wrong: %s\n", wr)
		}
	}
	return err
}
