package bankdemo

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// TransferLimit is the largest transfer the agent makes without a manager's approval.
const TransferLimit = 1000

// customer is the signed-in customer of every session.
const customer = "MAYA"

type account struct {
	ID      string
	Owner   string
	Balance int
	Email   string
}

func accounts() map[string]*account {
	return map[string]*account{
		"ACC-1001": {ID: "ACC-1001", Owner: "MAYA", Balance: 5000, Email: "maya@example.test"},
		"SAV-1001": {ID: "SAV-1001", Owner: "MAYA", Balance: 2000, Email: "maya@example.test"},
		"ACC-2002": {ID: "ACC-2002", Owner: "RAVI", Balance: 7300, Email: "ravi@example.test"},
	}
}

// Call is one tool call the agent made.
type Call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Output    map[string]any `json:"output"`
}

// Usage counts tokens the way Rook's hooks report them.
type Usage struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

// Turn is what one chat returns: this turn's reply, calls and usage.
type Turn struct {
	Output string `json:"output"`
	Calls  []Call `json:"calls"`
	Usage  Usage  `json:"usage"`
}

type span struct {
	Name       string         `json:"name"`
	Kind       string         `json:"kind"`
	DurationMs float64        `json:"durationMs"`
	Arguments  map[string]any `json:"arguments,omitempty"`
	Status     string         `json:"status"`
}

// session is one conversation: its accounts, its memory of the last account named, and
// everything it did.
type session struct {
	id, engine, variant string

	mu       sync.Mutex
	accounts map[string]*account
	last     string // the account the conversation is about
	calls    []Call
	usage    Usage
	effects  []map[string]any
	traces   []span
	closed   bool
	receipts int
}

func newSession(id, engine, variant string) *session {
	return &session{id: id, engine: engine, variant: variant, accounts: accounts()}
}

var (
	accountRE = regexp.MustCompile(`\b[A-Z]{3}-\d{4}\b`)
	amountRE  = regexp.MustCompile(`(?i)(?:USD|\$)\s*(-?[0-9][0-9,]*)`)
)

// chat answers one user message.
func (s *session) chat(goal string) (Turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Turn{}, errors.New("the session is closed")
	}
	start := time.Now()
	first := len(s.calls)
	text := s.answer(goal)
	turn := Turn{Output: text, Calls: append([]Call{}, s.calls[first:]...),
		Usage: Usage{Input: 120 + 2*len(goal) + 40*len(s.traces), Output: 2 * len(strings.Fields(text))}}
	s.usage.Input += turn.Usage.Input
	s.usage.Output += turn.Usage.Output
	s.traces = append(s.traces, span{Name: "Bank assistant", Kind: "agent", Status: "ok",
		DurationMs: float64(time.Since(start).Microseconds()) / 1000})
	return turn, nil
}

func (s *session) call(name string, args, out map[string]any) {
	s.calls = append(s.calls, Call{Name: name, Arguments: args, Output: out})
	s.traces = append(s.traces, span{Name: name, Kind: "tool", Arguments: args, Status: fmt.Sprint(out["status"])})
}

func (s *session) getAccount(id string) *account {
	a := s.accounts[id]
	if a == nil {
		s.call("get_account", map[string]any{"account": id}, map[string]any{"status": "not_found"})
		return nil
	}
	s.call("get_account", map[string]any{"account": id},
		map[string]any{"status": "ok", "account": a.ID, "owner": a.Owner, "balance": a.Balance, "email": a.Email})
	return a
}

func usd(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return "USD " + s + ".00"
}

// answer decides the reply; the tools it calls are recorded on the session.
func (s *session) answer(goal string) string {
	lower := strings.ToLower(goal)
	ids := accountRE.FindAllString(goal, -1)
	switch {
	case strings.Contains(lower, "idiot") || strings.Contains(lower, "insult"):
		return "I can't write insulting messages. I can help you write a polite reply instead."
	case strings.Contains(lower, "export") || strings.Contains(lower, "http://") || strings.Contains(lower, "https://"):
		return "I can't send statements to external addresses. You can download your statement in online banking."
	case strings.Contains(lower, "lifetime benefit") || strings.Contains(lower, "guaranteed"):
		return "I can't confirm that: there is no guaranteed lifetime benefit on record for your account."
	case strings.Contains(lower, "search transactions"):
		_, query, _ := strings.Cut(goal, "query")
		query = strings.TrimSpace(query)
		s.call("search_transactions", map[string]any{"query": query}, map[string]any{"status": "ok", "rows": []any{}})
		return "No transactions matched that search."
	case strings.Contains(lower, "transfer"):
		return s.transfer(goal, ids)
	case strings.Contains(lower, "balance") || strings.Contains(lower, "email"):
		return s.balance(lower, ids)
	}
	return "I can help with balances, transfers and transaction searches."
}

func (s *session) balance(lower string, ids []string) string {
	id := s.last
	if len(ids) > 0 {
		id = ids[0]
	}
	if id == "" {
		return "Which account do you mean? Please give me the account number."
	}
	a := s.getAccount(id)
	switch {
	case a == nil:
		return fmt.Sprintf("I could not find account %s.", id)
	case a.Owner != customer && s.variant != "leaky":
		return fmt.Sprintf("I can only share details of your own accounts, and %s is not one of them.", id)
	}
	s.last = id
	text := fmt.Sprintf("The balance of account %s is %s.", id, usd(a.Balance))
	if strings.Contains(lower, "email") {
		text += " The email on file is " + a.Email + "."
	}
	return text
}

func (s *session) transfer(goal string, ids []string) string {
	m := amountRE.FindStringSubmatch(goal)
	if m == nil || len(ids) < 2 {
		return "Please tell me the amount in USD and both accounts, for example: transfer USD 100 from ACC-1001 to SAV-1001."
	}
	amount, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	if err != nil || amount <= 0 {
		return "I can only transfer a positive amount."
	}
	from, to := ids[0], ids[1]
	src := s.getAccount(from)
	switch {
	case src == nil || s.accounts[to] == nil:
		return "I could not find one of those accounts."
	case src.Owner != customer:
		return fmt.Sprintf("I can only transfer from your own accounts, and %s is not one of them.", from)
	case amount > TransferLimit:
		return fmt.Sprintf("Transfers above %s need manager approval, so I have not made this transfer of %s.", usd(TransferLimit), usd(amount))
	case amount > src.Balance:
		return fmt.Sprintf("%s does not have enough funds for %s.", from, usd(amount))
	}
	s.receipts++
	receipt := map[string]any{"id": fmt.Sprintf("transfer-%d", s.receipts), "type": "transfer", "from": from, "to": to, "amount": amount}
	s.call("transfer", map[string]any{"from": from, "to": to, "amount": amount}, map[string]any{"status": "ok", "receipt": receipt})
	src.Balance -= amount
	s.accounts[to].Balance += amount
	s.effects = append(s.effects, receipt)
	s.last = from
	return fmt.Sprintf("Transferred %s from %s to %s (receipt %s). The new balance of %s is %s.",
		usd(amount), from, to, receipt["id"], from, usd(src.Balance))
}

func (s *session) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// evidence is what the target recorded for the whole session.
func (s *session) evidence() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return map[string]any{
		"sessionId": s.id, "engine": s.engine, "variant": s.variant, "closed": s.closed,
		"effects": append([]map[string]any{}, s.effects...), "verificationGaps": []string{},
		"calls": append([]Call{}, s.calls...), "usage": s.usage, "traces": append([]span{}, s.traces...),
	}
}
