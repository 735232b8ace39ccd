// Package modeljudge decides llm_judge criteria with a model behind any OpenAI-compatible
// chat-completions server (hosted OpenAI, vLLM, llama.cpp's server, Ollama, LM Studio,
// LiteLLM).
//
// One request per scenario attempt holds all of its llm_judge criteria and its bounded
// record. The answer is one JSON object (the judge protocol, see the README); it is parsed
// leniently and validated strictly here, whatever the server claims to enforce, and every
// quote it gives is looked up in the record: a Pass or a Fail whose quotes are not all
// found there is Unable to Verify. Nothing the model says becomes a Pass without a checked
// quote. How far a judge agrees with people is measured from their labels (calibrate.go),
// and a judge is qualified on a kit of requests whose answers are known (kit.go).
package modeljudge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/rookgo/rookgo/internal/ratelimit"
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
	// Samples is how many answers to ask for each request (odd; 1 when zero): a criterion's
	// status is the one most of them gave, with grounded quotes.
	Samples int
	// Redact, when set, rewrites the secrets of the run out of text: the prompt before it is
	// sent (a scenario's goal is not hook output, and may hold one), and every answer before
	// it is kept in the cache.
	Redact func(string) string
	// Limit bounds how often requests start (-rook.judge-rate); a 429's Retry-After holds
	// every request it bounds. nil: no bound.
	Limit *ratelimit.Limiter
	// Audit is the percentage of requests asked again with the agent's evidence removed
	// (-rook.judge-audit, audit.go); 0 asks none again.
	Audit int
	// Transport reaches the server (judgehttp.New()); nil fails every request with
	// ErrNoTransport.
	Transport Transport
	// Panel, when it names judges, asks each of them every request in place of URL,
	// Model and APIKey (panel.go); Rule is how their answers decide (RuleMajority when "").
	Panel []Member
	Rule  string
	// Mode is how a request is asked: ModeOne (one request, "" too) or ModeCommit (the
	// replies withheld first, commit.go).
	Mode string
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
	deadline time.Time

	mu      sync.Mutex
	format  int
	guessed string // how an audit caught the judge guessing

	preflight     sync.Once
	preflightFail error

	// members are the panel's judges, when cfg.Panel names them.
	members []*Judge
}

// New returns the judge of one run; its requests together end within cfg.TotalTime. With
// cfg.Panel it is a panel: one judge per member, with the rest of cfg.
func New(cfg Config) *Judge {
	cfg = cfg.withDefaults()
	j := &Judge{cfg: cfg, deadline: time.Now().Add(cfg.TotalTime)}
	if len(cfg.Panel) > 0 {
		j.cfg.Rule = cmp.Or(cfg.Rule, RuleMajority)
		for _, m := range cfg.Panel {
			mc := cfg
			mc.URL, mc.Model, mc.APIKey, mc.Panel, mc.Mode = m.URL, m.Model, m.APIKey, nil, "" // the panel commits first, once
			j.members = append(j.members, New(mc))
		}
	}
	return j
}

// Format says how the judge asks for structured output now: "json_schema" while the
// server takes a response_format schema, "json_object" or "the prompt only" once it refused
// the stricter ones.
func (j *Judge) Format() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return [...]string{"json_schema", "json_object", "the prompt only"}[j.format]
}

// Model is the model the judge asks for; a panel's names its members' ("panel of 3 (a, b,
// c)").
func (j *Judge) Model() string {
	if len(j.members) > 0 {
		return panelName(j.members)
	}
	return j.cfg.Model
}

// URL is the judge server's base URL as it is shown and recorded: a password in it is
// replaced by xxxxx. A panel's lists its members'.
func (j *Judge) URL() string {
	if len(j.members) > 0 {
		urls := make([]string, len(j.members))
		for i, m := range j.members {
			urls[i] = m.URL()
		}
		return strings.Join(urls, " ")
	}
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

	// answers are the first usable answer's statuses for every item of the request,
	// controls included (a panel records them); out says why this judge's answer counts
	// for nothing (every sample failed a control or was unusable, or an audit caught it
	// guessing), "" when it counts.
	answers map[string]record.Status
	out     string
	// expected is the status the record gives each control of the request, by its ids.
	expected map[string]record.Status
}

// Decide judges c's criteria. It always returns a Result per criterion: a judge that
// could not be reached, refused, answered out of protocol or failed a control leaves them
// Unable to Verify with the reason.
func (j *Judge) Decide(ctx context.Context, c Case) Decision {
	if j.cfg.Mode == ModeCommit && committable(c) {
		return j.commitFirst(ctx, c)
	}
	return j.decide(ctx, c)
}

// decide asks c's criteria in one request (of each member, for a panel).
func (j *Judge) decide(ctx context.Context, c Case) Decision {
	if len(j.members) > 0 {
		return j.panelDecide(ctx, c)
	}
	g := groundsOf(c, j.cfg.Redact) // the judge quotes what it was sent: redacted
	p := planFor(c, j.cfg.Redact, j.cfg.Budget)
	asked := c
	asked.Criteria = p.asked
	user, cut := prompt(asked, j.cfg.Budget)
	user = j.cfg.Redact(user)
	n := max(j.cfg.Samples, 1)
	d := Decision{Info: record.JudgeInfo{URL: j.URL(), Model: j.cfg.Model, Protocol: ProtocolVersion,
		PromptSHA256: hash(system, user), Cut: cut, Controls: len(p.controls) * n, ControlsWhy: p.none},
		expected: make(map[string]record.Status, len(p.controls))}
	for id, ctl := range p.controls {
		d.expected[id] = ctl.want
	}
	if n > 1 {
		d.Info.Samples = n
	}
	for _, cr := range p.asked {
		if id, ok := p.real[cr.ID]; ok {
			d.Info.Asked = append(d.Info.Asked, cr.ID+" = "+id)
		} else {
			d.Info.Asked = append(d.Info.Asked, cr.ID+" = a control")
		}
	}
	if why := j.Guessed(); why != "" {
		// Caught guessing earlier in the run: it is not asked again, and decides nothing.
		d.Results = map[string]Result{}
		for _, cr := range c.Criteria {
			d.Results[cr.ID] = guessedResult(why)
		}
		d.out = d.Results[c.Criteria[0].ID].Achieved
		return d
	}
	var samples []sample
	if err := j.Preflight(ctx); err != nil {
		// The whole reason is said once, at the top of the run's log.
		samples = []sample{{err: errors.New("the judge failed the preflight check at the start of the run, so it decides nothing in this run")}}
	} else {
		samples = j.samples(ctx, user, n, &d)
	}
	var decided []judged
	failed, unusable := "", ""
	for _, s := range samples {
		jd := judgeSample(s, p, g)
		switch {
		case jd.failedControl:
			d.Info.ControlsFailed++
			if failed == "" {
				failed = anyResult(jd.results).Achieved
			}
		case !jd.answered && unusable == "":
			unusable = "it gave no usable answer: " + anyResult(jd.results).Achieved
		}
		if d.answers == nil && jd.byRequest != nil {
			d.answers = jd.byRequest
		}
		decided = append(decided, jd)
	}
	usable := 0
	for _, jd := range decided {
		if jd.answered && !jd.failedControl {
			usable++
		}
	}
	if usable == 0 {
		d.out = cmp.Or(failed, unusable)
	}
	if j.audits(user) && len(samples) > 0 && samples[0].err == nil {
		d.Info.Audit = j.audit(ctx, c, n)
		d.Info.Usage = addUsages(d.Info.Usage, d.Info.Audit.Usage)
	}
	guessed := j.Guessed()
	d.Results = map[string]Result{}
	for _, cr := range c.Criteria {
		r := vote(cr.ID, decided)
		if len(p.controls) == 0 && r.Status != record.UnableToVerify {
			r.Confidence = lower(r.Confidence) // nothing checked this answer
		}
		if guessed != "" {
			r = guessedResult(guessed)
			d.out = r.Achieved
		}
		d.Results[cr.ID] = r
	}
	return d
}

// anyResult is one of results (they are all alike where it is asked).
func anyResult(results map[string]Result) Result {
	for _, r := range results {
		return r
	}
	return unable("no criterion was asked")
}

// guessedResult is a row of a judge an audit caught guessing in the run (why says how):
// nothing it answers is evidence, so every row it decides is Unable to Verify.
func guessedResult(why string) Result {
	r := unable("the judge answered without the agent's evidence (an audit caught it: " + why + "), so nothing it decides in this run is taken")
	r.Guessed = true
	return r
}

// addUsages adds what a second exchange used to the first's.
func addUsages(a, b *record.Usage) *record.Usage {
	if b == nil {
		return a
	}
	u := &usage{PromptTokens: b.Input, CompletionTokens: b.Output}
	return addUsage(a, u)
}

// lower is the confidence a step below c.
func lower(c string) string {
	if c == "High" {
		return "Medium"
	}
	return "Low"
}

// samples are the judge's n answers to the prompt: from the cache when it holds them, else
// asked (and cached when every one was usable).
func (j *Judge) samples(ctx context.Context, user string, n int, d *Decision) []sample {
	key := hash(ProtocolVersion, j.cfg.URL, j.cfg.Model, d.Info.PromptSHA256, fmt.Sprint(n))
	if cached, ok := j.cached(key); ok && len(cached.Contents) == n {
		d.Info.ReportedModel, d.Info.Cached = cached.ReportedModel, true
		d.Request, d.Response = cached.Request, cached.Response
		out := make([]sample, n)
		for i, c := range cached.Contents {
			out[i] = sample{content: c}
		}
		return out
	}
	r := j.ask(ctx, user, n)
	d.Request, d.Response, d.Info.ReportedModel, d.Info.Usage = r.request, r.response, r.model, r.usage
	contents := make([]string, 0, n)
	for _, s := range r.samples {
		if s.err != nil {
			return r.samples
		}
		contents = append(contents, j.cfg.Redact(s.content))
	}
	red := func(b []byte) json.RawMessage {
		if b == nil {
			return nil
		}
		return json.RawMessage(j.cfg.Redact(string(b)))
	}
	j.store(key, cacheEntry{ReportedModel: r.model, Contents: contents, Request: red(r.request), Response: red(r.response)})
	return r.samples
}

// asked is what the judge answered to one prompt, over however many requests it took.
type asked struct {
	samples           []sample
	model             string
	usage             *record.Usage
	request, response []byte
}

// addUsage adds what an answer says it used to the total so far; counts it does not give
// stay as they are.
func addUsage(total *record.Usage, u *usage) *record.Usage {
	if u == nil || (u.PromptTokens == nil && u.CompletionTokens == nil) {
		return total
	}
	if total == nil {
		total = &record.Usage{}
	}
	add := func(to **int64, n *int64) {
		if n == nil {
			return
		}
		if *to == nil {
			*to = new(int64)
		}
		**to += *n
	}
	add(&total.Input, u.PromptTokens)
	add(&total.Output, u.CompletionTokens)
	return total
}

// samplingTemperature is the temperature asked for when more than one sample is: the same
// request at temperature 0 gives most servers the same answer every time.
const samplingTemperature = 0.7
