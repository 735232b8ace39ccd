package modeljudge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rookgo/rookgo/internal/record"
)

// sample is one answer of the judge to a request (one of -rook.judge-samples): its content,
// or why there is none.
type sample struct {
	content string
	err     error
}

// judged is what one sample decided, by the case's criterion ids, after its quotes were
// grounded and its controls checked.
type judged struct {
	results       map[string]Result
	failedControl bool
	answered      bool // the judge gave a usable answer
	// byRequest is its status for every item of the request, controls included, by the
	// request's ids; nil when it gave no usable answer.
	byRequest map[string]record.Status
}

// judgeSample parses and grounds one sample against the plan: a sample that failed a
// control decides none of the case's criteria.
func judgeSample(s sample, p plan, g grounds) judged {
	out := judged{results: map[string]Result{}}
	all := func(r Result) judged {
		for _, id := range p.real {
			out.results[id] = r
		}
		return out
	}
	if s.err != nil {
		u := unable(s.err.Error())
		u.Unanswered = true
		return all(u)
	}
	a, err := parse(s.content)
	if err != nil {
		u := unable(err.Error())
		u.Unanswered = true
		return all(u)
	}
	out.answered = true
	byRequestID := decide(a, p.asked, g)
	out.byRequest = make(map[string]record.Status, len(byRequestID))
	for rid, r := range byRequestID {
		out.byRequest[rid] = r.Status
	}
	if why := p.failedControl(byRequestID); why != "" {
		out.failedControl = true
		return all(unable(why + ", so this answer decides nothing"))
	}
	for rid, id := range p.real {
		out.results[id] = byRequestID[rid]
	}
	return out
}

// vote combines the samples' decisions on one criterion: the status a majority of all
// samples gave, with the first such sample's reasons and quotes, and the agreement; no
// majority is Unable to Verify, saying how the judge split. One sample is its own answer.
func vote(id string, samples []judged) Result {
	if len(samples) == 1 {
		return samples[0].results[id]
	}
	count := map[record.Status]int{}
	first := map[record.Status]Result{}
	unanswered := 0
	for _, s := range samples {
		r := s.results[id]
		if r.Unanswered {
			unanswered++
		}
		if _, ok := first[r.Status]; !ok {
			first[r.Status] = r
		}
		count[r.Status]++
	}
	n := len(samples)
	for status, k := range count {
		if 2*k > n {
			r := first[status]
			r.Agreement = fmt.Sprintf("%d/%d", k, n)
			r.Unanswered = unanswered == n
			return r
		}
	}
	split, most := splitOf(count)
	u := unable(fmt.Sprintf("the judge disagreed with itself over %d samples: %s", n, split))
	u.Agreement = fmt.Sprintf("%d/%d", most, n)
	u.Unanswered = unanswered == n
	return u
}

// splitOf says how votes split over statuses ("Fail 1, Pass 1"), and the most any status
// got: for a vote (samples, a panel) that reached no decision.
func splitOf(count map[record.Status]int) (string, int) {
	var split []string
	most := 0
	for status, k := range count {
		split = append(split, fmt.Sprintf("%s %d", status, k))
		most = max(most, k)
	}
	sort.Strings(split)
	return strings.Join(split, ", "), most
}
