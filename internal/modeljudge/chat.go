package modeljudge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rookgo/rookgo/internal/record"
)

// ChatAnswer is a model's answer to one Chat.
type ChatAnswer struct {
	// Content is the answer's text: one JSON object, not yet validated against the schema
	// (the caller's protocol does that).
	Content       string
	ReportedModel string
	Usage         *record.Usage
	// Request is the request body sent; Cached says the answer came from the cache.
	Request []byte
	Cached  bool
}

// Chat asks the model one question whose answer is one JSON object of schema: the other
// model-driven parts of a run (the simulated user) reach their model through the judge's
// client, with its timeout, retries, rate, structured-output fallbacks (json_schema, then
// json_object, then the schema in the prompt) and cache. An answer is cached by the
// request, so that the same question is answered the same way on a run again.
func (j *Judge) Chat(ctx context.Context, system, user, name string, schema map[string]any) (ChatAnswer, error) {
	schemaText, err := json.Marshal(schema)
	if err != nil {
		return ChatAnswer{}, fmt.Errorf("encode the answer's schema: %w", err)
	}
	key := hash("chat", j.cfg.URL, j.cfg.Model, system, user, string(schemaText))
	if e, ok := j.cached(key); ok && len(e.Contents) == 1 {
		return ChatAnswer{Content: e.Contents[0], ReportedModel: e.ReportedModel, Request: e.Request, Cached: true}, nil
	}
	ctx, cancel := context.WithDeadline(ctx, j.deadline)
	defer cancel()
	var log []exchange
	for tries := 0; tries < 4; tries++ {
		j.mu.Lock()
		format := j.format
		j.mu.Unlock()
		body, err := json.Marshal(chatBody(j.cfg.Model, system, user, name, schema, schemaText, format))
		if err != nil {
			return ChatAnswer{}, fmt.Errorf("encode the request: %w", err)
		}
		c, err := j.post(ctx, body, &log)
		if j.refusedFormat(format, c, err) {
			continue
		}
		if err != nil {
			return ChatAnswer{Request: body}, err
		}
		if len(c.Choices) == 0 {
			return ChatAnswer{Request: body}, errors.New("the answer has no choices")
		}
		s := choiceSample(c.Choices[0])
		if s.err != nil {
			return ChatAnswer{Request: body}, s.err
		}
		a := ChatAnswer{Content: j.cfg.Redact(s.content), ReportedModel: c.Model, Usage: addUsage(nil, c.Usage), Request: body}
		j.store(key, cacheEntry{ReportedModel: c.Model, Contents: []string{a.Content}, Request: json.RawMessage(j.cfg.Redact(string(body)))})
		return a, nil
	}
	return ChatAnswer{}, errors.New("the server took none of the structured-output formats")
}

// chatBody is a Chat request in the given structured-output format.
func chatBody(model, system, user, name string, schema map[string]any, schemaText []byte, format int) map[string]any {
	if format == formatPrompt {
		system += "\n\nThe answer's JSON Schema:\n" + string(schemaText)
	}
	body := map[string]any{"model": model, "temperature": 0,
		"messages": []map[string]string{{"role": "system", "content": system}, {"role": "user", "content": user}}}
	switch format {
	case formatSchema:
		body["response_format"] = map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": name, "strict": true, "schema": schema}}
	case formatObject:
		body["response_format"] = map[string]any{"type": "json_object"}
	}
	return body
}
