// Package fakejudge is an OpenAI-compatible chat-completions server with scripted answers,
// used only by the project's tests: run it with httptest on 127.0.0.1 and point
// ROOK_JUDGE_URL at it. It reads the judge protocol's prompt (the scenario id, the criteria,
// the agent's replies) and answers as the scenario's script says.
package fakejudge

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rookgo/rookgo/internal/record"
)

// The scripts, chosen per scenario id.
const (
	GroundedPass   = "grounded-pass"    // Pass, quoting the agent's last reply
	GroundedFail   = "grounded-fail"    // Fail, quoting the agent's last reply
	Fabricated     = "fabricated"       // Pass, quoting text that is nowhere in the record
	NoQuote        = "no-quote"         // Pass with no evidence
	Prose          = "prose"            // a grounded Pass in a fenced block among prose
	Garbage        = "garbage"          // not JSON at all
	RateLimited    = "rate-limited"     // 429 with Retry-After once, then a grounded Pass
	ServerError    = "server-error"     // 500, always
	Slow           = "slow"             // answers after Delay
	FormatRefused  = "format-refused"   // 400 naming response_format while one is sent, then a grounded Pass
	Truncated      = "truncated"        // finish_reason length
	MissingAnswer  = "missing-answer"   // answers no criterion
	EmptyForSchema = "empty-for-schema" // empty content while a json_schema is set, then a grounded Pass
	Unsure         = "unsure"           // a grounded Pass with Medium confidence
	WrongControl   = "wrong-control"    // real criteria as grounded-pass, but statements about a quoted phrase the wrong way round
	QuoteGoal      = "quote-goal"       // Pass, quoting the scenario's goal (the tester's words)
	QuoteCriterion = "quote-criterion"  // Pass, quoting the criterion it decides
	QuoteLabel     = "quote-label"      // Pass, quoting the record's own heading "turn 1: agent [said]"
	// ShapeOnly reads statements by their shape alone, as a careless model that has learnt
	// what controls look like: a statement naming a value (a number, an identifier, a
	// tool, a name) is Pass when the value is anywhere in the record and Fail when it is
	// not, negation and source ignored; any other statement is Fail.
	ShapeOnly = "shape-only"
	// ReplySwayed answers controls as a careful judge does, and believes what the agent
	// says: a real criterion is a Pass quoting the last reply. Where the replies are withheld
	// (commit-first judging) it reads the tools: a Fail quoting a tool output that denies
	// ("denied", false, "failed", "error"), Unable to Verify otherwise.
	ReplySwayed = "reply-swayed"
	// PassAll is a grounded Pass to every statement, controls included.
	PassAll = "pass-all"
	// Guesser is GroundedPass, but a Pass too where the record shows nothing the agent or
	// its tools produced (where the others are Unable to Verify, as a careful judge is).
	Guesser = "guesser"
	// CutNumber is a Pass quoting the last reply up to its first number, cut a digit
	// short ("limit of 20" out of "limit of 200 dollars").
	CutNumber = "cut-number"
	// DropNegation is a Pass quoting the last reply from just after its first negation
	// ("issue the refund" out of "I cannot issue the refund").
	DropNegation = "drop-negation"
	// NegationBlind reads words without their negation, controls included: a statement
	// naming an action a reply refuses is Pass, quoting the action alone; a real criterion
	// is answered as DropNegation answers it.
	NegationBlind = "negation-blind"
	// "samples:Pass,Pass,Fail" answers the request's choices (n of them, or one when
	// IgnoreN) with these statuses for every real criterion, in turn over the scenario's
	// requests; each Pass or Fail quotes the last reply.
	SamplesPrefix = "samples:"
	// "user:" scripts a simulated user (package simuser): items separated by " | ", the
	// n-th the answer to the scenario's n-th simulated message ("Message n" in the prompt):
	// "send TEXT", "done WHY", "give_up WHY", "garbage" (out of protocol) or "hang" (no
	// answer until the request is given up).
	UserPrefix = "user:"
)

// Every script but WrongControl answers a statement that claims something literal of the
// record (the judge's controls are such statements) as a careful judge would: from the
// record, quoting what shows it (careful.go).

// Server answers chat completions by script.
type Server struct {
	// Scripts maps a scenario id to its script; others get Default. Set it before the
	// server serves; SetScript changes a script while it does.
	Scripts map[string]string
	Default string
	// Delay is how long Slow waits.
	Delay time.Duration
	// Model is the model the server reports.
	Model string
	// IgnoreN answers one choice whatever n a request asks for, as many servers do.
	IgnoreN bool
	// EchoAuth has every row's achieved repeat the Authorization header the request
	// carried, as a careless server echoing its input would.
	EchoAuth bool

	mu       sync.Mutex
	requests map[string][]Request
	seen     map[string]int
	served   map[string]int // choices answered by a samples: script, per scenario
}

// Request is one request the server received.
type Request struct {
	Body   map[string]any
	Prompt string
	Auth   string
}

// New returns a server with the given scripts.
func New(scripts map[string]string) *Server {
	return &Server{Scripts: scripts, Default: GroundedPass, Delay: 3 * time.Second, Model: "fake-judge-1",
		requests: map[string][]Request{}, seen: map[string]int{}, served: map[string]int{}}
}

// SetScript gives scenario its script from now on, safe while the server serves.
func (s *Server) SetScript(scenario, script string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Scripts == nil {
		s.Scripts = map[string]string{}
	}
	s.Scripts[scenario] = script
}

// Requests returns the requests received for a scenario id (PREFLIGHT for the preflight).
func (s *Server) Requests(scenario string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests[scenario]...)
}

// Total counts every request received.
func (s *Server) Total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.requests {
		n += len(r)
	}
	return n
}

var (
	scenarioRE  = regexp.MustCompile(`(?m)^Scenario ([A-Za-z0-9_-]+)`)
	criterionRE = regexp.MustCompile(`(?m)^- ([A-Za-z0-9_-]+): (.*)$`)
	goalRE      = regexp.MustCompile(`(?m)^Goal \(the final user turn\): (.*)$`)
	replyRE     = regexp.MustCompile(`(?s)turn \d+: agent \[said\]:\n(.*?)\n(?:turn \d+: user:|tool call|tool calls|token usage|latency|collect data|evidence file|\z)`)
)

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error": "not found"}`, http.StatusNotFound)
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, `{"error": "bad json"}`, http.StatusBadRequest)
		return
	}
	prompt := ""
	if msgs, ok := body["messages"].([]any); ok && len(msgs) > 0 {
		if last, ok := msgs[len(msgs)-1].(map[string]any); ok {
			prompt, _ = last["content"].(string)
		}
	}
	scenario := "?"
	if m := scenarioRE.FindStringSubmatch(prompt); m != nil {
		scenario = m[1]
	}
	s.mu.Lock()
	s.requests[scenario] = append(s.requests[scenario], Request{Body: body, Prompt: prompt, Auth: r.Header.Get("Authorization")})
	s.seen[scenario]++
	n := s.seen[scenario]
	script := s.Scripts[scenario]
	s.mu.Unlock()
	if script == "" {
		script = s.Default
	}
	_, hasFormat := body["response_format"]
	format, _ := body["response_format"].(map[string]any)
	switch script {
	case RateLimited:
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			http.Error(w, `{"error": {"message": "rate limited"}}`, http.StatusTooManyRequests)
			return
		}
	case ServerError:
		http.Error(w, `{"error": {"message": "the model crashed"}}`, http.StatusInternalServerError)
		return
	case Slow:
		select {
		case <-time.After(s.Delay):
		case <-r.Context().Done():
			return
		}
	case FormatRefused:
		if hasFormat {
			http.Error(w, `{"error": {"message": "response_format is not supported by this server"}}`, http.StatusBadRequest)
			return
		}
	case EmptyForSchema:
		if format["type"] == "json_schema" {
			s.answer(w, "", "stop")
			return
		}
	}
	if items, ok := strings.CutPrefix(script, UserPrefix); ok {
		s.answerUser(w, r, strings.Split(items, " | "), prompt)
		return
	}
	if statuses, ok := strings.CutPrefix(script, SamplesPrefix); ok {
		s.answerSamples(w, scenario, strings.Split(statuses, ","), body, prompt)
		return
	}
	content := s.content(script, prompt)
	if s.EchoAuth {
		content = strings.ReplaceAll(content, `"achieved":"`, `"achieved":"you sent `+r.Header.Get("Authorization")+`; `)
	}
	s.answer(w, content, finish(script), len(prompt)/4)
}

func finish(script string) string {
	if script == Truncated {
		return "length"
	}
	return "stop"
}

// denies finds a tool output that says the action did not happen.
var denies = regexp.MustCompile(`(?i)"(denied|rejected|failed|error)"|: ?false\b`)

// content is the scripted answer to a prompt.
func (s *Server) content(script, prompt string) string {
	var ids, statements []string
	for _, m := range criterionRE.FindAllStringSubmatch(prompt, -1) {
		ids, statements = append(ids, m[1]), append(statements, m[2])
	}
	var replies []string
	for _, m := range replyRE.FindAllStringSubmatch(prompt, -1) {
		replies = append(replies, strings.TrimSpace(m[1]))
	}
	quote := firstAgentQuote(prompt)
	if len(replies) > 0 {
		quote = head(replies[len(replies)-1])
	}
	rows := []map[string]any{}
	for i, id := range ids {
		if r := answerRow(script, id, statements[i], prompt, quote, replies); r != nil {
			rows = append(rows, r)
		}
	}
	b, _ := json.Marshal(map[string]any{"criteria": rows})
	switch script {
	case Prose:
		return "Sure. Here is my verdict:\n```json\n" + string(b) + "\n```\nI hope this helps."
	case Garbage:
		return "I think the agent did fine overall."
	case Truncated:
		return string(b[:len(b)/2])
	}
	return string(b)
}

// row is one row of an answer.
func row(id, status string, evidence []string) map[string]any {
	return map[string]any{"criterion_id": id, "expected": "the criterion holds", "evidence": evidence,
		"achieved": "the agent's reply shows it", "status": status, "confidence": "High", "reason": ""}
}

// answerRow is the script's answer to one statement, quoting quote (the last reply's
// start); nil for no answer.
func answerRow(script, id, statement, prompt, quote string, replies []string) map[string]any {
	if quote == "" && script != Guesser && script != PassAll && script != ShapeOnly {
		// Nothing the agent or its tools produced is in the record: a careful judge
		// cannot decide anything.
		r := row(id, string(record.UnableToVerify), []string{})
		r["reason"], r["confidence"] = "the record holds nothing the agent or its tools produced", "Low"
		return r
	}
	switch script {
	case ShapeOnly:
		status, evidence := shapeAnswer(statement, prompt, quote)
		return row(id, status, evidence)
	case PassAll:
		return row(id, string(record.Pass), []string{quote})
	}
	if c, ok := readControl(statement); ok && c.Kind == "refused" && script == NegationBlind {
		for _, r := range replies {
			if i := strings.Index(strings.ToLower(r), strings.ToLower(c.Value)); i >= 0 {
				return row(id, string(record.Pass), []string{r[i : i+len(c.Value)]})
			}
		}
	}
	if status, evidence, ok := carefulAnswer(statement, prompt); ok {
		if script == WrongControl {
			status = map[string]string{string(record.Pass): string(record.Fail), string(record.Fail): string(record.Pass)}[status]
		}
		return row(id, status, evidence)
	}
	switch script {
	case GroundedFail:
		return row(id, string(record.Fail), []string{quote})
	case CutNumber, DropNegation, NegationBlind:
		return row(id, string(record.Pass), []string{lie(script, replies)})
	case Fabricated:
		return row(id, string(record.Pass), []string{"the agent confirmed the refund of 900 dollars"})
	case NoQuote:
		return row(id, string(record.Pass), []string{})
	case QuoteGoal:
		goal := ""
		if m := goalRE.FindStringSubmatch(prompt); m != nil {
			goal = m[1]
		}
		return row(id, string(record.Pass), []string{goal})
	case QuoteCriterion:
		return row(id, string(record.Pass), []string{statement})
	case QuoteLabel:
		return row(id, string(record.Pass), []string{"turn 1: agent [said]"})
	case MissingAnswer:
		return nil
	case ReplySwayed:
		if len(replies) > 0 {
			return row(id, string(record.Pass), []string{quote})
		}
		for _, sec := range sections(prompt) {
			if _, out, ok := strings.Cut(sec.body, "\noutput: "); ok && strings.HasPrefix(sec.title, "tool call ") {
				for _, el := range elements(out) {
					if denies.MatchString(el) {
						return row(id, string(record.Fail), []string{el})
					}
				}
			}
		}
		r := row(id, string(record.UnableToVerify), []string{})
		r["reason"], r["confidence"] = "the replies are withheld and no tool output decides it", "Low"
		return r
	case Unsure:
		r := row(id, string(record.Pass), []string{quote})
		r["confidence"] = "Medium"
		return r
	}
	return row(id, string(record.Pass), []string{quote})
}

// answerSamples answers n choices, each giving every real criterion the next status of
// the list.
func (s *Server) answerSamples(w http.ResponseWriter, scenario string, statuses []string, body map[string]any, prompt string) {
	n := 1
	if v, ok := body["n"].(float64); ok && v > 1 && !s.IgnoreN {
		n = int(v)
	}
	s.mu.Lock()
	first := s.served[scenario]
	s.served[scenario] += n
	s.mu.Unlock()
	var choices []any
	for k := range n {
		status := statuses[(first+k)%len(statuses)]
		script := GroundedPass
		switch status {
		case string(record.Fail):
			script = GroundedFail
		case string(record.UnableToVerify):
			script = MissingAnswer // rows below are replaced by the judge's own Unable to Verify
		}
		content := s.content(script, prompt)
		if status == string(record.UnableToVerify) {
			content = s.unsure(prompt)
		}
		choices = append(choices, map[string]any{"index": k, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion", "model": s.Model,
		"choices": choices, "usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20 * n}})
}

// unsure is an answer that is Unable to Verify on every real criterion, controls answered
// as a careful judge would.
func (s *Server) unsure(prompt string) string {
	var rows []map[string]any
	for _, m := range criterionRE.FindAllStringSubmatch(prompt, -1) {
		status, evidence, ok := carefulAnswer(m[2], prompt)
		if !ok {
			status, evidence = string(record.UnableToVerify), []string{}
		}
		rows = append(rows, map[string]any{"criterion_id": m[1], "expected": "the criterion holds", "evidence": evidence,
			"achieved": "the record does not say", "status": status, "confidence": "Low", "reason": "the record does not say"})
	}
	b, _ := json.Marshal(map[string]any{"criteria": rows})
	return string(b)
}

// answer sends one choice; a prompt of promptTokens (when more than 0) is reported as the
// usage, with a token per four bytes of the content.
func (s *Server) answer(w http.ResponseWriter, content, finishReason string, promptTokens ...int) {
	w.Header().Set("Content-Type", "application/json")
	var usage any
	if len(promptTokens) > 0 && promptTokens[0] > 0 {
		usage = map[string]any{"prompt_tokens": promptTokens[0], "completion_tokens": len(content) / 4}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "model": s.Model, "usage": usage,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finishReason,
			"message": map[string]any{"role": "assistant", "content": content}}},
	})
}

var messageRE = regexp.MustCompile(`(?m)^Message ([0-9]+);`)

// answerUser answers a simulated user's request with the item its message number names
// (the last item past the end).
func (s *Server) answerUser(w http.ResponseWriter, r *http.Request, items []string, prompt string) {
	n := 1
	if m := messageRE.FindStringSubmatch(prompt); m != nil {
		n, _ = strconv.Atoi(m[1])
	}
	item := strings.TrimSpace(items[min(max(n, 1), len(items))-1])
	verb, text, _ := strings.Cut(item, " ")
	var content string
	switch verb {
	case "send":
		content = fmt.Sprintf(`{"action": "send", "message": %q, "why": ""}`, text)
	case "done", "give_up":
		content = fmt.Sprintf(`{"action": %q, "message": "", "why": %q}`, verb, text)
	case "hang":
		<-r.Context().Done()
		return
	default:
		content = "Sure! I would ask the agent about my order next."
	}
	s.answer(w, content, "stop", len(prompt)/4)
}

// String names the server's scripts, for test logs.
func (s *Server) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("fake judge %s (%d scripts)", s.Model, len(s.Scripts))
}

// head is the start of a reply a judge quotes: at most 60 bytes, ending on a word's edge
// as a quote must.
func head(reply string) string {
	if len(reply) <= 60 {
		return reply
	}
	if i := strings.LastIndexByte(reply[:61], ' '); i > 0 {
		return strings.TrimRight(reply[:i], ",;:")
	}
	return reply
}

var (
	digitsRE   = regexp.MustCompile(`\d[\d,.]*\d|\d`)
	negationRE = regexp.MustCompile(`(?i)\b(cannot|can't|won't|never|not|unable to)\s+`)
)

// lie is the quote a CutNumber or DropNegation judge gives from the last reply.
func lie(script string, replies []string) string {
	if len(replies) == 0 {
		return ""
	}
	r := replies[len(replies)-1]
	if script == CutNumber {
		if loc := digitsRE.FindStringIndex(r); loc != nil {
			return r[:loc[1]-1]
		}
		return head(r)
	}

	if loc := negationRE.FindStringIndex(r); loc != nil {
		return head(r[loc[1]:])
	}
	return head(r)
}
