// Package modeljudge decides llm_judge criteria with a model behind any OpenAI-compatible
// chat-completions server (hosted OpenAI, vLLM, llama.cpp's server, Ollama, LM Studio,
// LiteLLM).
//
// One request per scenario attempt holds all of its llm_judge criteria and its bounded
// record. The answer is one JSON object (the judge protocol, see the README); it is parsed
// leniently and validated strictly here, whatever the server claims to enforce, and every
// quote it gives is looked up in the record: a Pass or a Fail whose quotes are not all
// found there is Unable to Verify. Nothing the model says becomes a Pass without a checked
// quote.
package modeljudge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/record"
)

// Config is how to reach the judge and how far to trust it.
type Config struct {
	// URL is the server's base URL (http://127.0.0.1:11434/v1); Model the model to ask;
	// APIKey is sent as a bearer token when set (never written anywhere).
	URL, Model, APIKey string
	// Timeout bounds each request; Retries is how many times a 429, a 5xx or a lost
	// connection is retried, Backoff the first wait (doubling), MaxWait the longest.
	Timeout, Backoff, MaxWait time.Duration
	Retries                   int
	// Budget is how many bytes of the record go into a prompt.
	Budget int
	// TotalTime bounds all judge requests of one run together.
	TotalTime time.Duration
	// Preflight asks the server one question with a certain answer before the first
	// judged criterion; a server that fails it decides nothing in the run.
	Preflight bool
	// CacheDir keeps answers by fingerprint; "" turns the cache off.
	CacheDir string
	// Redact, when set, rewrites the secrets of the run out of text: the prompt before it is
	// sent (a scenario's goal is not hook output, and may hold one), and every answer before
	// it is kept in the cache.
	Redact func(string) string
}

// Defaults fills in what a Config leaves zero.
func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = 120 * time.Second
	}
	if c.Backoff <= 0 {
		c.Backoff = time.Second
	}
	if c.MaxWait <= 0 {
		c.MaxWait = 30 * time.Second
	}
	if c.Retries < 0 {
		c.Retries = 0
	}
	if c.Budget <= 0 {
		c.Budget = 64 << 10
	}
	if c.TotalTime <= 0 {
		c.TotalTime = 30 * time.Minute
	}
	if c.Redact == nil {
		c.Redact = func(s string) string { return s }
	}
	return c
}

// Judge asks one judge for one run.
type Judge struct {
	cfg      Config
	http     *http.Client
	deadline time.Time

	mu     sync.Mutex
	format int

	preflight     sync.Once
	preflightFail error
}

// New returns the judge of one run; its requests together end within cfg.TotalTime.
func New(cfg Config) *Judge {
	cfg = cfg.withDefaults()
	return &Judge{cfg: cfg, http: &http.Client{CheckRedirect: sameOriginAuth}, deadline: time.Now().Add(cfg.TotalTime)}
}

// sameOriginAuth follows a redirect (at most ten), sending the Authorization header only to
// the origin (scheme, host and port) it was meant for: net/http keeps it for another port
// of the same host.
func sameOriginAuth(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if o := via[0].URL; o.Scheme != req.URL.Scheme || o.Host != req.URL.Host {
		req.Header.Del("Authorization")
	}
	return nil
}

// Model is the model the judge asks for.
func (j *Judge) Model() string { return j.cfg.Model }

// URL is the judge server's base URL as it is shown and recorded: a password in it is
// replaced by xxxxx.
func (j *Judge) URL() string {
	u, err := url.Parse(j.cfg.URL)
	if err != nil {
		return "(a judge URL that does not parse)"
	}
	return u.Redacted()
}

// Decision is what the judge decided for one scenario attempt.
type Decision struct {
	// Results holds a Result for every criterion asked about.
	Results map[string]Result
	// Info says who decided, from which prompt, as verdict.yaml records it.
	Info record.JudgeInfo
	// Request and Response are the exchange as the records keep it (the request body
	// sent, every answer received), to write as evidence/judge-request.json and
	// evidence/judge-response.json. The API key is in neither: it travels in a header.
	Request, Response []byte
}

// Decide judges c's criteria. It always returns a Result per criterion: a judge that
// could not be reached, refused, or answered out of protocol leaves them Unable to
// Verify with the reason.
func (j *Judge) Decide(ctx context.Context, c Case) Decision {
	g := groundsOf(c, j.cfg.Redact) // the judge quotes what it was sent: redacted
	user, cut := prompt(c, j.cfg.Budget)
	user = j.cfg.Redact(user)
	d := Decision{Info: record.JudgeInfo{URL: j.URL(), Model: j.cfg.Model, Protocol: ProtocolVersion,
		PromptSHA256: hash(system, user), Cut: cut}}
	all := func(why string) Decision {
		d.Results = map[string]Result{}
		for _, cr := range c.Criteria {
			u := unable(why)
			u.Unanswered = true
			d.Results[cr.ID] = u
		}
		return d
	}
	if err := j.Preflight(ctx); err != nil {
		// The whole reason is said once, at the top of the run's log.
		return all("the judge failed the preflight check at the start of the run, so it decides nothing in this run")
	}
	key := hash(ProtocolVersion, j.cfg.URL, j.cfg.Model, d.Info.PromptSHA256)
	if cached, ok := j.cached(key); ok {
		d.Info.ReportedModel, d.Info.Cached = cached.ReportedModel, true
		d.Request, d.Response = cached.Request, cached.Response
		a, err := parse(cached.Content)
		if err != nil {
			return all(err.Error())
		}
		d.Results = decide(a, c.Criteria, g)
		return d
	}
	content, reported, req, resp, err := j.ask(ctx, user)
	d.Request, d.Response, d.Info.ReportedModel = req, resp, reported
	if err != nil {
		return all(err.Error())
	}
	a, err := parse(content)
	if err != nil {
		return all(err.Error())
	}
	d.Results = decide(a, c.Criteria, g)
	red := func(b []byte) json.RawMessage {
		if b == nil {
			return nil
		}
		return json.RawMessage(j.cfg.Redact(string(b)))
	}
	j.store(key, cacheEntry{ReportedModel: reported, Content: j.cfg.Redact(content), Request: red(req), Response: red(resp)})
	return d
}

// ask sends the prompt in the best structured-output format the server takes, and
// returns the answer's content and the model the server says answered.
func (j *Judge) ask(ctx context.Context, user string) (content, reported string, request, response []byte, err error) {
	ctx, cancel := context.WithDeadline(ctx, j.deadline)
	defer cancel()
	var log []exchange
	defer func() {
		if len(log) > 0 {
			request = log[0].Request
		}
		response = exchanges(log)
	}()
	for {
		j.mu.Lock()
		format := j.format
		j.mu.Unlock()
		body, err := json.Marshal(requestBody(j.cfg.Model, user, format))
		if err != nil {
			return "", "", nil, nil, fmt.Errorf("encode the judge request: %w", err)
		}
		c, err := j.post(ctx, body, &log)
		next := errors.Is(err, errFormat)
		if err == nil && len(c.Choices) > 0 && c.Choices[0].Message.Content != nil && *c.Choices[0].Message.Content == "" &&
			c.Choices[0].Message.Refusal == nil && format < formatPrompt {
			next = true // some servers answer a schema they cannot follow with nothing
		}
		if next && format < formatPrompt {
			j.mu.Lock()
			if j.format == format {
				j.format = format + 1
			}
			j.mu.Unlock()
			continue
		}
		if err != nil {
			return "", "", nil, nil, err
		}
		if len(c.Choices) == 0 {
			return "", c.Model, nil, nil, errors.New("the judge's answer has no choices")
		}
		ch := c.Choices[0]
		switch {
		case ch.Message.Refusal != nil && *ch.Message.Refusal != "":
			return "", c.Model, nil, nil, fmt.Errorf("the judge refused: %s", check.Clip(*ch.Message.Refusal, 300))
		case ch.FinishReason == "length":
			return "", c.Model, nil, nil, errors.New("the judge's answer was cut off (finish_reason length): raise the server's output limit")
		case ch.Message.Content == nil:
			return "", c.Model, nil, nil, errors.New("the judge returned no content")
		}
		return *ch.Message.Content, c.Model, nil, nil, nil
	}
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

func requestBody(model, user string, format int) map[string]any {
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
	switch format {
	case formatSchema:
		body["response_format"] = map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": "verdicts", "strict": true, "schema": schema}}
	case formatObject:
		body["response_format"] = map[string]any{"type": "json_object"}
	}
	return body
}
