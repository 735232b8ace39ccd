// Package judgehttp is the model judge's HTTP client: it carries one chat-completions
// request to an OpenAI-compatible server and brings back the answer, bounded. It is its
// own package so that a test binary whose scenarios no model judges does not link net/http
// (rooktest/judge registers it; rookgen imports that for a suite that needs a judge).
package judgehttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rookgo/rookgo/internal/modeljudge"
)

// Transport posts over HTTP. Redirects are followed (at most ten), and the API key goes
// only to the origin it was meant for.
type Transport struct {
	client *http.Client
}

// New returns the HTTP transport.
func New() *Transport {
	return &Transport{client: &http.Client{CheckRedirect: sameOriginAuth}}
}

// Post sends body to url as JSON, with apiKey as a bearer token when set, and reads at
// most limit+1 bytes of the answer.
func (t *Transport) Post(ctx context.Context, url, apiKey string, body []byte, limit int) (modeljudge.Reply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return modeljudge.Reply{}, fmt.Errorf("build the judge request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	res, err := t.client.Do(req)
	if err != nil {
		return modeljudge.Reply{}, fmt.Errorf("reach the judge: %w", err)
	}
	defer func() { _ = res.Body.Close() }() // read to the end or to the limit; nothing to report
	r := modeljudge.Reply{Status: res.StatusCode}
	if v := res.Header.Get("Retry-After"); v != "" {
		r.RetryAfter, r.HasRetryAfter = retryAfter(v), true
	}
	r.Body, err = io.ReadAll(io.LimitReader(res.Body, int64(limit)+1))
	if err != nil {
		return r, fmt.Errorf("read the judge's answer: %w", err)
	}
	return r, nil
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date; 0 when it is neither.
func retryAfter(v string) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
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
