package draft

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"time"
)

// Bounds on a source: what is read of it, and how long a URL may take.
const (
	maxSource    = 8 << 20
	fetchTimeout = 30 * time.Second
)

// IsURL says whether source names an http(s) URL rather than a file.
func IsURL(source string) bool {
	return strings.HasPrefix(source, "http://") || strings.HasPrefix(source, "https://")
}

// Load reads a source: a file, or an http(s) URL fetched once (at most five redirects, all
// http or https, within 30 s and 8 MiB). It returns the body and its media type ("" for a
// file).
func Load(ctx context.Context, source string) ([]byte, string, error) {
	if !IsURL(source) {
		f, err := os.Open(source)
		if err != nil {
			return nil, "", err // names the file and what failed
		}
		defer func() { _ = f.Close() }() // read only
		return bounded(f, source, "")
	}
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, source, nil)
	if err != nil {
		return nil, "", fmt.Errorf("fetch %s: %w", source, err)
	}
	req.Header.Set("Accept", "application/json, application/yaml, text/yaml, text/markdown, text/plain, text/html;q=0.8, */*;q=0.5")
	client := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		if r.URL.Scheme != "http" && r.URL.Scheme != "https" {
			return fmt.Errorf("redirected to %s, not http or https", r.URL.Scheme)
		}
		return nil
	}}
	res, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, "", fmt.Errorf("fetch %s: no whole answer within %s", source, fetchTimeout)
		}
		return nil, "", fmt.Errorf("fetch %s: %w", source, err)
	}
	defer func() { _ = res.Body.Close() }() // read to the end or to the bound
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, "", fmt.Errorf("fetch %s: HTTP %d", source, res.StatusCode)
	}
	data, _, err := bounded(res.Body, source, "")
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return nil, "", fmt.Errorf("fetch %s: no whole answer within %s", source, fetchTimeout)
	}
	return data, res.Header.Get("Content-Type"), err
}

func bounded(r io.Reader, source, mediaType string) ([]byte, string, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSource+1))
	if err != nil {
		return nil, "", fmt.Errorf("read %s: %w", source, err)
	}
	if len(data) > maxSource {
		return nil, "", fmt.Errorf("read %s: over %d MiB; give the part that says how to call the agent", source, maxSource>>20)
	}
	return data, mediaType, nil
}

var (
	htmlDropped = regexp.MustCompile(`(?is)<(script|style|noscript|svg|head)\b.*?</(script|style|noscript|svg|head)\s*>`)
	htmlTag     = regexp.MustCompile(`(?s)<[^>]*>`)
	blankLines  = regexp.MustCompile(`\n[ \t]*(\n[ \t]*)+`)
)

// Text is what a model reads of a free-text source: a web page's text without its markup,
// scripts and styles; other text as it is.
func Text(data []byte, mediaType string) string {
	s := string(data)
	trimmed := strings.TrimSpace(s)
	if strings.Contains(mediaType, "html") || strings.HasPrefix(strings.ToLower(trimmed), "<!doctype html") || strings.HasPrefix(strings.ToLower(trimmed), "<html") {
		s = htmlDropped.ReplaceAllString(s, " ")
		s = htmlTag.ReplaceAllString(s, " ")
		s = html.UnescapeString(s)
		s = blankLines.ReplaceAllString(s, "\n\n")
	}
	return strings.TrimSpace(s)
}
