package modeljudge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rookgo/rookgo/internal/check"
)

// The ways to ask for structured output, tried in this order: a server that refuses one
// (HTTP 400 naming response_format), or answers it with empty content, is asked the next
// way, and the way that worked is kept for the rest of the run.
const (
	formatSchema = iota // response_format json_schema
	formatObject        // response_format json_object
	formatPrompt        // no response_format: the schema is in the prompt only
)

// exchange is one chat-completions call as the records keep it.
type exchange struct {
	Request  json.RawMessage `json:"request"`
	Status   int             `json:"status,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// completion is the part of a chat-completions answer the judge reads.
type completion struct {
	Model   string   `json:"model"`
	Choices []choice `json:"choices"`
	Usage   *usage   `json:"usage"`
}

type choice struct {
	FinishReason string `json:"finish_reason"`
	Message      struct {
		Content *string `json:"content"`
		Refusal *string `json:"refusal"`
	} `json:"message"`
}

// usage is what an answer says the request used.
type usage struct {
	PromptTokens     *int64 `json:"prompt_tokens"`
	CompletionTokens *int64 `json:"completion_tokens"`
}

// errFormat is a server refusing the response_format it was sent.
var errFormat = errors.New("the server refused response_format")

// post sends one chat-completions request, retrying 429, 5xx and connection errors with
// backoff (honouring Retry-After) within the judge's limits. Each try is kept in log.
func (j *Judge) post(ctx context.Context, body []byte, log *[]exchange) (*completion, error) {
	url := strings.TrimRight(j.cfg.URL, "/") + "/chat/completions"
	var last error
	for try := 0; try <= j.cfg.Retries; try++ {
		if try > 0 {
			if err := sleep(ctx, j.backoff(try, last)); err != nil {
				return nil, fmt.Errorf("%w (after %d tries; the last: %v)", err, try, last)
			}
		}
		if _, err := j.cfg.Limit.Wait(ctx); err != nil { // counted from here: the request follows at once
			return nil, fmt.Errorf("waiting for the judge's rate (-rook.judge-rate): %w", err)
		}
		ex := exchange{Request: body}
		c, status, raw, err := j.once(ctx, url, body)
		var ra *retryAfter
		if errors.As(err, &ra) {
			j.cfg.Limit.Pause(ra.after) // every request waits, not only this one
		}
		ex.Status, ex.Response = status, jsonOrString(raw)
		if err != nil {
			ex.Error = err.Error()
		}
		*log = append(*log, ex)
		switch {
		case err == nil:
			return c, nil
		case errors.Is(err, errFormat), errors.Is(err, ErrNoTransport), !retryable(status, err) || ctx.Err() != nil:
			return nil, err
		}
		last = err
	}
	return nil, fmt.Errorf("gave up after %d tries: %w", j.cfg.Retries+1, last)
}

// Transport carries one chat-completions request to the server and brings back its
// answer. The HTTP one is internal/modeljudge/judgehttp, apart from this package so that a
// binary that judges nothing does not link net/http.
type Transport interface {
	// Post sends body to url, with apiKey as a bearer token when set, and reads at most
	// limit+1 bytes of the answer. An error is no answer, or an answer cut short.
	Post(ctx context.Context, url, apiKey string, body []byte, limit int) (Reply, error)
}

// Reply is a server's answer as received.
type Reply struct {
	Status int
	Body   []byte
	// RetryAfter is the wait the server asked for (Retry-After), when HasRetryAfter.
	RetryAfter    time.Duration
	HasRetryAfter bool
}

// ErrNoTransport is a judge with no way to reach its server: the test binary links no
// judge client.
var ErrNoTransport = errors.New("this binary links no judge client (import github.com/rookgo/rookgo/rooktest/judge)")

// once is one exchange.
func (j *Judge) once(ctx context.Context, url string, body []byte) (*completion, int, []byte, error) {
	if j.cfg.Transport == nil {
		return nil, 0, nil, ErrNoTransport
	}
	ctx, cancel := context.WithTimeout(ctx, j.cfg.Timeout)
	defer cancel()
	res, err := j.cfg.Transport.Post(ctx, url, j.cfg.APIKey, body, maxAnswer)
	raw := res.Body
	switch {
	case err != nil && res.Status == 0 && ctx.Err() == context.DeadlineExceeded:
		return nil, 0, nil, fmt.Errorf("no answer within %s", j.cfg.Timeout)
	case err != nil:
		return nil, res.Status, raw, err
	case len(raw) > maxAnswer:
		return nil, res.Status, raw[:maxAnswer], fmt.Errorf("the judge's answer is over %d bytes", maxAnswer)
	}
	if res.Status != statusOK {
		msg := fmt.Errorf("the judge answered HTTP %d: %s", res.Status, check.Clip(strings.TrimSpace(string(raw)), 300))
		if res.Status == statusBadRequest && strings.Contains(strings.ToLower(string(raw)), "response_format") {
			return nil, res.Status, raw, fmt.Errorf("%w: %v", errFormat, msg)
		}
		if res.HasRetryAfter {
			return nil, res.Status, raw, &retryAfter{err: msg, after: res.RetryAfter}
		}
		return nil, res.Status, raw, msg
	}
	if err := shallow(raw); err != nil {
		return nil, res.Status, raw, fmt.Errorf("the judge's answer is not a chat completion: %w", err)
	}
	var c completion
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, res.Status, raw, fmt.Errorf("the judge's answer is not a chat completion: %s", check.Clip(string(raw), 200))
	}
	return &c, res.Status, raw, nil
}

// The HTTP statuses the judge reads.
const (
	statusOK              = 200
	statusBadRequest      = 400
	statusTooManyRequests = 429
)

// maxAnswer bounds what a judge server may send back.
const maxAnswer = 4 << 20

type retryAfter struct {
	err   error
	after time.Duration
}

func (r *retryAfter) Error() string { return r.err.Error() }
func (r *retryAfter) Unwrap() error { return r.err }

func retryable(status int, err error) bool {
	switch {
	case status == statusTooManyRequests, status >= 500:
		return true
	case status == 0:
		return err != nil // no HTTP answer: connection refused, reset, or the timeout
	}
	return false
}

// backoff is how long to wait before try n: Retry-After when the server said, else
// doubling from the base; never more than MaxWait.
func (j *Judge) backoff(try int, last error) time.Duration {
	var ra *retryAfter
	if errors.As(last, &ra) && ra.after > 0 {
		return min(ra.after, j.cfg.MaxWait)
	}
	return min(j.cfg.Backoff<<(try-1), j.cfg.MaxWait)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the judge's time ran out: %w", context.Cause(ctx))
	}
}

// maxDepth bounds how deep a judge's answer, or the JSON inside it, may nest: the protocol's
// own answer is four levels deep.
const maxDepth = 32

// maxKept bounds what of one answer the records keep.
const maxKept = 256 << 10

// shallow reports an error when data nests deeper than maxDepth, without parsing it.
func shallow(data []byte) error {
	depth, in, esc := 0, false, false
	for _, c := range data {
		switch {
		case esc:
			esc = false
		case in && c == '\\':
			esc = true
		case c == '"':
			in = !in
		case in:
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return fmt.Errorf("it nests deeper than %d levels", maxDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// jsonOrString keeps an answer as the records show it: as JSON when it is valid UTF-8,
// valid and shallow JSON of at most maxKept bytes, else as a JSON string of its first
// maxKept bytes (invalid UTF-8 replaced), so that judge-response.json is always JSON and
// never larger than the judge's tries times maxKept.
func jsonOrString(raw []byte) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if len(raw) <= maxKept && utf8.Valid(raw) && shallow(raw) == nil && json.Valid(raw) {
		var compact bytes.Buffer
		if json.Compact(&compact, raw) == nil {
			return compact.Bytes()
		}
	}
	s := string(raw)
	if len(s) > maxKept {
		s = s[:maxKept] + fmt.Sprintf("[... %d bytes more]", len(raw)-maxKept)
	}
	b, _ := json.Marshal(strings.ToValidUTF8(s, "\uFFFD"))
	return b
}

// refusedFormat reports whether the server refused the structured-output format it was
// asked in (an HTTP 400 naming response_format, or empty content, which some servers
// answer a schema they cannot follow with), and then moves the judge to the next format,
// for this request and the run's others; false once the prompt alone is left.
func (j *Judge) refusedFormat(format int, c *completion, err error) bool {
	empty := err == nil && len(c.Choices) > 0 && c.Choices[0].Message.Content != nil && *c.Choices[0].Message.Content == "" &&
		c.Choices[0].Message.Refusal == nil
	if !(errors.Is(err, errFormat) || empty) || format >= formatPrompt {
		return false
	}
	j.mu.Lock()
	if j.format == format {
		j.format = format + 1
	}
	j.mu.Unlock()
	return true
}

// ask sends the prompt in the best structured-output format the server takes until it has
// n answers (n in one request where the server gives them, one by one where it does not),
// or an error ends it; a sample it could not get carries the error.
func (j *Judge) ask(ctx context.Context, user string, n int) (r asked) {
	ctx, cancel := context.WithDeadline(ctx, j.deadline)
	defer cancel()
	var log []exchange
	defer func() {
		if len(log) > 0 {
			r.request = log[0].Request
		}
		r.response = exchanges(log)
		for len(r.samples) < n {
			r.samples = append(r.samples, sample{err: errors.New("the judge gave fewer answers than asked for")})
		}
	}()
	for tries := 0; len(r.samples) < n && tries < 3+n; tries++ {
		j.mu.Lock()
		format := j.format
		j.mu.Unlock()
		body, err := json.Marshal(requestBody(j.cfg.Model, user, format, n-len(r.samples)))
		if err != nil {
			r.samples = append(r.samples, sample{err: fmt.Errorf("encode the judge request: %w", err)})
			return r
		}
		c, err := j.post(ctx, body, &log)
		if j.refusedFormat(format, c, err) {
			continue
		}
		if err != nil {
			r.samples = append(r.samples, sample{err: err})
			return r
		}
		r.model = c.Model
		r.usage = addUsage(r.usage, c.Usage)
		if len(c.Choices) == 0 {
			r.samples = append(r.samples, sample{err: errors.New("the judge's answer has no choices")})
			return r
		}
		for _, ch := range c.Choices {
			if len(r.samples) < n {
				r.samples = append(r.samples, choiceSample(ch))
			}
		}
	}
	return r
}

// choiceSample is one choice of an answer as a sample.
func choiceSample(ch choice) sample {
	switch {
	case ch.Message.Refusal != nil && *ch.Message.Refusal != "":
		return sample{err: fmt.Errorf("the judge refused: %s", check.Clip(*ch.Message.Refusal, 300))}
	case ch.FinishReason == "length":
		return sample{err: errors.New("the judge's answer was cut off (finish_reason length): raise the server's output limit")}
	case ch.Message.Content == nil:
		return sample{err: errors.New("the judge returned no content")}
	}
	return sample{content: *ch.Message.Content}
}

// exchanges is the exchange log as judge-response.json keeps it: a list, one compact line
// per try (an answer indented level by level could be many times its own size).
func exchanges(log []exchange) []byte {
	var b bytes.Buffer
	b.WriteString("[")
	for i, ex := range log {
		line, err := json.Marshal(ex)
		if err != nil {
			line, _ = json.Marshal(exchange{Error: "the exchange could not be kept: " + err.Error()})
		}
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  ")
		b.Write(line)
	}
	b.WriteString("\n]\n")
	return b.Bytes()
}

func requestBody(model, user string, format, n int) map[string]any {
	sys := system
	if format == formatPrompt {
		b, _ := json.Marshal(schema)
		sys += "\n\nThe answer's JSON Schema:\n" + string(b)
	}
	body := map[string]any{
		"model":       model,
		"temperature": 0,
		"messages": []map[string]string{
			{"role": "system", "content": sys},
			{"role": "user", "content": user},
		},
	}
	if n > 1 {
		body["n"], body["temperature"] = n, samplingTemperature
	}
	switch format {
	case formatSchema:
		body["response_format"] = map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": "verdicts", "strict": true, "schema": schema}}
	case formatObject:
		body["response_format"] = map[string]any{"type": "json_object"}
	}
	return body
}
