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
)

// Server answers chat completions by script.
type Server struct {
	// Scripts maps a scenario id to its script; others get Default.
	Scripts map[string]string
	Default string
	// Delay is how long Slow waits.
	Delay time.Duration
	// Model is the model the server reports.
	Model string

	mu       sync.Mutex
	requests map[string][]Request
	seen     map[string]int
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
		requests: map[string][]Request{}, seen: map[string]int{}}
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
	criterionRE = regexp.MustCompile(`(?m)^- ([A-Za-z0-9_-]+): `)
	replyRE     = regexp.MustCompile(`(?s)turn \d+: agent:\n(.*?)\n(?:turn \d+: user:|tool call|tool calls|token usage|latency|collect data|evidence file|\z)`)
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
	s.mu.Unlock()
	script := s.Scripts[scenario]
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
	s.answer(w, s.content(script, prompt), finish(script))
}

func finish(script string) string {
	if script == Truncated {
		return "length"
	}
	return "stop"
}

// content is the scripted answer to a prompt.
func (s *Server) content(script, prompt string) string {
	var ids []string
	for _, m := range criterionRE.FindAllStringSubmatch(prompt, -1) {
		ids = append(ids, m[1])
	}
	quote := ""
	if ms := replyRE.FindAllStringSubmatch(prompt, -1); len(ms) > 0 {
		quote = strings.TrimSpace(ms[len(ms)-1][1])
		if len(quote) > 60 {
			quote = quote[:60]
		}
	}
	row := func(id, status string, evidence []string) map[string]any {
		return map[string]any{"criterion_id": id, "expected": "the criterion holds", "evidence": evidence,
			"achieved": "the agent's reply shows it", "status": status, "confidence": "High", "reason": ""}
	}
	rows := []map[string]any{}
	for _, id := range ids {
		switch script {
		case GroundedFail:
			rows = append(rows, row(id, string(record.Fail), []string{quote}))
		case Fabricated:
			rows = append(rows, row(id, string(record.Pass), []string{"the agent confirmed the refund of 900 dollars"}))
		case NoQuote:
			rows = append(rows, row(id, string(record.Pass), []string{}))
		case MissingAnswer:
		case Unsure:
			r := row(id, string(record.Pass), []string{quote})
			r["confidence"] = "Medium"
			rows = append(rows, r)
		default:
			rows = append(rows, row(id, string(record.Pass), []string{quote}))
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

func (s *Server) answer(w http.ResponseWriter, content, finishReason string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "model": s.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finishReason,
			"message": map[string]any{"role": "assistant", "content": content}}},
	})
}

// String names the server's scripts, for test logs.
func (s *Server) String() string {
	return fmt.Sprintf("fake judge %s (%d scripts)", s.Model, len(s.Scripts))
}
