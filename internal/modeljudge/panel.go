package modeljudge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/rookgo/rookgo/internal/record"
)

// Member is one judge of a panel: its server, model and key.
type Member struct {
	URL, Model, APIKey string
}

// The rules a panel decides a criterion by.
const (
	// RuleMajority takes the status more than half of the members still in gave; a tie,
	// or no majority, is Unable to Verify.
	RuleMajority = "majority"
	// RuleUnanimous takes a status only when every member still in gave it.
	RuleUnanimous = "unanimous"
)

// panelName is how a panel is named where one judge's model would be.
func panelName(members []*Judge) string {
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = m.cfg.Model
	}
	return fmt.Sprintf("panel of %d (%s)", len(members), strings.Join(names, ", "))
}

// memberAnswer is what one member made of the request.
type memberAnswer struct {
	d Decision
	// out says why the member decides nothing in this request: it failed a control, gave
	// no usable answer, or was caught guessing in the run.
	out string
}

// panelDecide asks every member the same request (the same prompt, the same controls) at
// once, leaves out each member that failed a control, gave no usable answer or was caught
// guessing, and decides each criterion by the rule over the members still in. What each
// member answered to every item of the request is recorded (record.JudgePanel), so that a
// report can say how far they agree with the controls and with each other.
func (j *Judge) panelDecide(ctx context.Context, c Case) Decision {
	answers := make([]memberAnswer, len(j.members))
	var wg sync.WaitGroup
	for i, m := range j.members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := m.Decide(ctx, c)
			answers[i] = memberAnswer{d: d, out: d.out}
		}()
	}
	wg.Wait()

	first := answers[0].d // every member was sent the same request: the same plan
	d := Decision{Info: record.JudgeInfo{URL: j.URL(), Model: j.Model(), Protocol: ProtocolVersion,
		PromptSHA256: first.Info.PromptSHA256, Cut: first.Info.Cut, Asked: first.Info.Asked, ControlsWhy: first.Info.ControlsWhy,
		Cached: true}}
	panel := &record.JudgePanel{Rule: j.cfg.Rule, Expected: first.expected}
	var requests, responses []memberExchange
	for i, a := range answers {
		m := j.members[i]
		d.Info.Controls += a.d.Info.Controls
		d.Info.ControlsFailed += a.d.Info.ControlsFailed
		d.Info.Usage = addUsages(d.Info.Usage, a.d.Info.Usage)
		d.Info.Cached = d.Info.Cached && a.d.Info.Cached
		panel.Members = append(panel.Members, record.PanelMember{URL: m.URL(), Model: m.cfg.Model, ReportedModel: a.d.Info.ReportedModel,
			Cached: a.d.Info.Cached, Out: a.out, Answers: a.d.answers, Usage: a.d.Info.Usage})
		requests = append(requests, memberExchange{Model: m.cfg.Model, Body: jsonOrString(a.d.Request)})
		responses = append(responses, memberExchange{Model: m.cfg.Model, Body: jsonOrString(a.d.Response)})
	}
	d.Info.Panel = panel
	d.Request, _ = json.Marshal(requests) // each body is JSON, or a string of what it was
	d.Response, _ = json.Marshal(responses)
	d.Results = map[string]Result{}
	for _, cr := range c.Criteria {
		d.Results[cr.ID] = j.rule(cr.ID, answers)
	}
	return d
}

// memberExchange is one member's request or answers, as the panel's evidence files list
// them.
type memberExchange struct {
	Model string          `json:"model"`
	Body  json.RawMessage `json:"body"`
}

// rule decides one criterion from the members' answers.
func (j *Judge) rule(id string, answers []memberAnswer) Result {
	count := map[record.Status]int{}
	first := map[record.Status]Result{}
	in, unanswered := 0, true
	var outs []string
	for i, a := range answers {
		if a.out != "" {
			outs = append(outs, fmt.Sprintf("%s: %s", j.members[i].cfg.Model, a.out))
			continue
		}
		r := a.d.Results[id]
		in++
		unanswered = unanswered && r.Unanswered
		if _, ok := first[r.Status]; !ok {
			first[r.Status] = r
		}
		count[r.Status]++
	}
	if in == 0 {
		u := unable("every member of the panel was out of this request: " + strings.Join(outs, "; "))
		u.Unanswered = unanswered
		return u
	}
	n := len(answers)
	for status, k := range count {
		if (j.cfg.Rule == RuleUnanimous && k == in) || (j.cfg.Rule != RuleUnanimous && 2*k > in) {
			r := first[status]
			r.Agreement = fmt.Sprintf("%d/%d members", k, n)
			if k < n && r.Status != record.UnableToVerify {
				r.Confidence = lower(r.Confidence) // not every member stood behind it
			}
			return r
		}
	}
	split, most := splitOf(count)
	why := "no majority"
	if j.cfg.Rule == RuleUnanimous {
		why = "not unanimous"
	}
	u := unable(fmt.Sprintf("the panel (%s) split over %d member(s) still in: %s", why, in, split))
	u.Agreement = fmt.Sprintf("%d/%d members", most, n)
	return u
}

// panelPreflight asks every member the preflight question: a member that fails it is out
// of the whole run; the panel fails only when every member did.
func (j *Judge) panelPreflight(ctx context.Context) error {
	var errs []error
	for _, m := range j.members {
		if err := m.Preflight(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m.cfg.Model, err))
		}
	}
	if len(errs) == len(j.members) {
		return errors.Join(errs...)
	}
	return nil
}

// panelGuessed names the members an audit caught guessing, "" when none was.
func (j *Judge) panelGuessed() string {
	var caught []string
	for _, m := range j.members {
		if why := m.Guessed(); why != "" {
			caught = append(caught, m.cfg.Model+": "+why)
		}
	}
	return strings.Join(caught, "; ")
}
