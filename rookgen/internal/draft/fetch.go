package draft

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
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
// http or https and to the first URL's class of address, within 30 s and 8 MiB). It returns the body and its media type ("" for a
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
	first, err := hostClass(ctx, req.URL.Hostname())
	if err != nil {
		return nil, "", fmt.Errorf("fetch %s: %w", source, err)
	}
	// Each redirect goes to an address of the first URL's class (public stays public): a
	// page that redirects to the loopback, a private or a link-local address (a cloud's
	// metadata service) is refused, so that what is fetched there never reaches a model.
	// A name is resolved here to be classed; one that resolves otherwise when it is
	// dialled (DNS rebinding) is not caught.
	client := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if len(via) > 5 {
			return errors.New("stopped after 5 redirects")
		}
		if r.URL.Scheme != "http" && r.URL.Scheme != "https" {
			return fmt.Errorf("redirected to %s, not http or https", r.URL.Scheme)
		}
		c, err := hostClass(r.Context(), r.URL.Hostname())
		if err != nil {
			return err
		}
		if c != first {
			return fmt.Errorf("redirected to %s, a %s address, from a %s one: a fetch keeps to its first URL's kind of address", r.URL.Hostname(), c, first)
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

// hostClass is the class of the addresses host names: loopback, private, link-local or
// public ("localhost" is loopback); a name that resolves to several classes takes the
// first non-public one.
func hostClass(ctx context.Context, host string) (string, error) {
	if ip := net.ParseIP(host); ip != nil {
		return classOf(ip), nil
	}
	if strings.EqualFold(host, "localhost") {
		return "loopback", nil
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return "", err
	}
	class := "public"
	for _, ip := range ips {
		if c := classOf(ip.IP); c != "public" {
			return c, nil
		}
	}
	return class, nil
}

// classOf is an address's class.
func classOf(ip net.IP) string {
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case ip.IsPrivate(), ip.IsUnspecified():
		return "private"
	}
	return "public"
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
