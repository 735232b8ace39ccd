package modeljudge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
)

// MinQuote is the shortest quote that can ground a verdict: "the" occurs everywhere.
const MinQuote = 8

// answer is the judge's reply as the protocol has it.
type answer struct {
	Criteria []answerRow `json:"criteria"`
}

type answerRow struct {
	CriterionID string   `json:"criterion_id"`
	Expected    string   `json:"expected"`
	Evidence    []string `json:"evidence"`
	Achieved    string   `json:"achieved"`
	Status      string   `json:"status"`
	Confidence  string   `json:"confidence"`
	Reason      string   `json:"reason"`
}

// Result is the judge's decision on one criterion, after the answer was checked.
type Result struct {
	Status   record.Status
	Reason   string
	Expected string
	Achieved string
	Evidence string
	// Found says where each quote of Evidence was found: "turn 2 reply", "CALL-01
	// issue_refund result", "evidence file ...".
	Found      []string
	Confidence string
	// Agreement is how many of the samples gave this status, of how many ("2/3"), when
	// more than one was asked.
	Agreement string
	// Unanswered is set when the judge gave no usable answer at all (unreached, an error,
	// the preflight failed, out of protocol): the criterion may be asked again.
	Unanswered bool
	// Guessed is set on a row of a judge an audit caught guessing in this run: it is Unable
	// to Verify, whatever the judge answered.
	Guessed bool
}

func unable(why string) Result {
	return Result{Status: record.UnableToVerify, Reason: record.Undecidable, Achieved: why, Confidence: "Low"}
}

// parse reads the model's content leniently (a fenced block, prose around the object) and
// validates it strictly.
func parse(content string) (*answer, error) {
	s := strings.TrimSpace(content)
	if s == "" {
		return nil, errors.New("the judge returned no content")
	}
	if i := strings.Index(s, "```"); i >= 0 {
		rest := s[i+3:]
		rest = strings.TrimPrefix(rest, "json")
		if j := strings.Index(rest, "```"); j >= 0 {
			s = strings.TrimSpace(rest[:j])
		}
	}
	start, end := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if start < 0 || end < start {
		return nil, fmt.Errorf("the judge's answer holds no JSON object: %s", check.Clip(content, 200))
	}
	if err := shallow([]byte(s[start : end+1])); err != nil {
		return nil, fmt.Errorf("the judge's answer is not the protocol's JSON (%v): %s", err, check.Clip(content, 200))
	}
	dec := json.NewDecoder(strings.NewReader(s[start : end+1]))
	dec.DisallowUnknownFields()
	var a answer
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("the judge's answer is not the protocol's JSON (%v): %s", err, check.Clip(content, 200))
	}
	if a.Criteria == nil {
		return nil, errors.New(`the judge's answer has no "criteria" list`)
	}
	return &a, nil
}

// decide checks each answer row against the protocol and grounds its quotes in the record;
// every asked criterion gets a Result, whatever the answer held.
func decide(a *answer, asked []Criterion, g grounds) map[string]Result {
	out := map[string]Result{}
	seen := map[string]int{}
	for _, r := range a.Criteria {
		seen[r.CriterionID]++
	}
	for _, c := range asked {
		var row *answerRow
		for i := range a.Criteria {
			if a.Criteria[i].CriterionID == c.ID {
				row = &a.Criteria[i]
				break
			}
		}
		switch {
		case row == nil:
			out[c.ID] = unable("the judge gave no answer for " + c.name())
			continue
		case seen[c.ID] > 1:
			out[c.ID] = unable(fmt.Sprintf("the judge answered %s %d times", c.name(), seen[c.ID]))
			continue
		}
		out[c.ID] = ground(*row, g)
	}
	return out
}

// ground turns one answer row into a Result: nothing becomes a Pass or a Fail unless
// every quote for it is found in what the agent or the world produced.
func ground(r answerRow, g grounds) Result {
	res := Result{Expected: r.Expected, Achieved: r.Achieved, Confidence: r.Confidence}
	switch r.Confidence {
	case "High", "Medium", "Low":
	default:
		return unable(fmt.Sprintf("the judge's confidence %q is not High, Medium or Low", r.Confidence))
	}
	res.Evidence = quoted(r.Evidence, nil)
	switch record.Status(r.Status) {
	case record.UnableToVerify:
		res.Status, res.Reason = record.UnableToVerify, record.Undecidable
		if r.Reason != "" {
			res.Achieved = "the judge could not decide: " + r.Reason
		}
		return res
	case record.Pass, record.Fail:
	default:
		return unable(fmt.Sprintf("the judge's status %q is not Pass, Fail or Unable to Verify", r.Status))
	}
	if len(r.Evidence) == 0 {
		u := unable("the judge quoted no evidence for its " + r.Status)
		u.Expected = r.Expected
		return u
	}
	found, why := g.groundQuotes(r.Evidence)
	if why != "" {
		u := unable(why)
		u.Expected, u.Evidence = r.Expected, res.Evidence
		return u
	}
	res.Evidence = quoted(r.Evidence, found)
	negated := 0
	for _, o := range found {
		res.Found = append(res.Found, o.label)
		if o.negatedBy != "" {
			negated++
		}
	}
	if record.Status(r.Status) == record.Pass && negated == len(found) {
		u := unable("the quote leaves out what turns it around in its sentence: " + res.Evidence)
		u.Expected, u.Evidence, u.Found = r.Expected, res.Evidence, res.Found
		return u
	}
	res.Status = record.Status(r.Status)
	return res
}

// quoted shows a row's quotes, each with the negation before it in its source when it
// leaves one out: "issue the refund" (after "i cannot").
func quoted(quotes []string, found []occurrence) string {
	out := make([]string, len(quotes))
	for i, q := range quotes {
		out[i] = fmt.Sprintf("%q", q)
		if i < len(found) && found[i].negatedBy != "" {
			out[i] += fmt.Sprintf(" (with %q)", found[i].negatedBy)
		}
	}
	return strings.Join(out, " … ")
}

// normalise folds what a faithful quote may change: case, runs of white space, and
// typographic quotes and dashes.
func normalise(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		switch r {
		case '‘', '’', '‚', '‛', '′':
			r = '\''
		case '“', '”', '„', '‟', '″':
			r = '"'
		case '–', '—', '‒', '−':
			r = '-'
		}
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
