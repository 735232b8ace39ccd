package scaffold

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// Request is an HTTP agent's request, read from a cURL command: the hook sends it once per
// turn, with {{goal}} (and {{conversation}}) replaced.
type Request struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	// Headers keep their order.
	Headers []Header `json:"headers"`
	// Body is JSON, or "" for none.
	Body string `json:"body,omitempty"`
	// Secrets are the variables the request's credentials are read from. Wherever the
	// cURL command held a credential (a header, the URL's user:password@ or a query
	// parameter, a body key), the request holds {{env:NAME}}, which the hook fills from
	// the environment: no file holds the value.
	Secrets []Secret `json:"-"`

	// own, for a command a draft made from a source, are the only variables the request
	// may read: those the draft named itself. nil for a command the user wrote, whose
	// variables are the user's choice.
	own map[string]bool
}

// Header is one request header; its Value is a template like the URL's.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ConversationPlaceholder is replaced by the conversation id an earlier turn returned.
const ConversationPlaceholder = "{{conversation}}"

// curlFlags are the cURL options a request is read from, and those that change nothing
// the hook does (it follows redirects and accepts compressed replies itself).
var (
	curlValue = map[string]string{"-X": "method", "--request": "method", "-H": "header", "--header": "header",
		"-d": "data", "--data": "data", "--data-raw": "data", "--data-binary": "data", "--json": "json", "--url": "url",
		"-u": "user", "--user": "user", "-A": "agent", "--user-agent": "agent", "-m": "ignore", "--max-time": "ignore",
		"--connect-timeout": "ignore"}
	curlIgnored = map[string]bool{"-s": true, "--silent": true, "-S": true, "--show-error": true, "-L": true,
		"--location": true, "--compressed": true, "-sS": true, "-Ss": true, "-sSL": true, "-fsSL": true,
		"-f": true, "--fail": true, "-N": true, "--no-buffer": true}
)

// ParseCurl reads the request of a cURL command for agent: method, URL, headers and JSON
// body. Credential headers become variables named <AGENT>_<HEADER>. An option it does not
// know is refused by name, rather than dropped.
func ParseCurl(agent, line string) (*Request, error) { return parseCurl(agent, line, nil) }

// ParseDrafted reads the cURL command a draft made from a source (a document, a
// recording, a model's answer) as ParseCurl does, except that the only shell variables it
// reads are own, those the draft named itself ($<AGENT>_TOKEN for a security scheme). Any
// other ($GITHUB_TOKEN in a recorded header, in a model's answer) is the source's text:
// the credential it stands for is read from <AGENT>_<NAME>, as a value there would be, so
// that a source never picks which of the user's variables the hook sends.
func ParseDrafted(agent, line string, own []string) (*Request, error) {
	set := map[string]bool{}
	for _, v := range own {
		set[v] = true
	}
	return parseCurl(agent, line, set)
}

func parseCurl(agent, line string, own map[string]bool) (*Request, error) {
	args, err := Split(line)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 || args[0] != "curl" {
		return nil, fmt.Errorf("a cURL command starts with curl")
	}
	r := &Request{own: own}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if curlIgnored[a] {
			continue
		}
		kind, ok := curlValue[a]
		if !ok {
			if strings.HasPrefix(a, "-") {
				return nil, fmt.Errorf("cURL option %s is not one init reads (it reads -X, -H, -d/--data/--data-raw/--json, -u, --url)", a)
			}
			kind = "url"
		} else {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("cURL option %s needs a value", a)
			}
			i++
		}
		v := args[i]
		switch kind {
		case "method":
			r.Method = strings.ToUpper(v)
		case "url":
			if r.URL != "" {
				return nil, fmt.Errorf("two URLs: %s and %s", r.URL, v)
			}
			r.URL = v
		case "header":
			name, value, ok := strings.Cut(v, ":")
			if !ok {
				return nil, fmt.Errorf("header %q has no colon", v)
			}
			r.addHeader(agent, strings.TrimSpace(name), strings.TrimSpace(value))
		case "json":
			r.addHeader(agent, "Content-Type", "application/json")
			r.addHeader(agent, "Accept", "application/json")
			fallthrough
		case "data":
			if r.Body != "" {
				return nil, fmt.Errorf("two request bodies; give the JSON body once")
			}
			r.Body = v
		case "user":
			r.addHeader(agent, "Authorization", "") // basic credentials: the whole header from the variable
		case "agent":
			r.addHeader(agent, "User-Agent", v)
		}
	}
	if err := r.check(); err != nil {
		return nil, err
	}
	r.urlCredentials(agent)
	if err := r.bodyCredentials(agent); err != nil {
		return nil, fmt.Errorf("the request body: %w", err)
	}
	return r, nil
}

func (r *Request) addHeader(agent, name, value string) {
	for _, h := range r.Headers {
		if strings.EqualFold(h.Name, name) {
			return // the first wins, as cURL's own -H over --json's
		}
	}
	r.Headers = append(r.Headers, Header{Name: name, Value: r.headerValue(agent, name, value)})
}

func envName(agent, header string) string { return EnvWord(agent) + "_" + EnvWord(header) }

// EnvWord is s as a part of a variable's name: upper case, every other character than a
// letter or a digit an underscore.
func EnvWord(s string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z':
			return c - 'a' + 'A'
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			return c
		}
		return '_'
	}, s)
}

func (r *Request) check() error {
	if r.URL == "" {
		return fmt.Errorf("the cURL command has no URL")
	}
	if origin := originOf(r.URL); strings.Contains(origin, "{{") {
		return fmt.Errorf("URL %q: a placeholder in its scheme, host or port would let a scenario's text choose where the request and its credentials go; put %s in the path, the query or the body", r.URL, GoalPlaceholder)
	}
	u, err := url.Parse(strings.ReplaceAll(strings.ReplaceAll(r.URL, GoalPlaceholder, "g"), ConversationPlaceholder, "c"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("URL %q: want http:// or https:// and a host", r.URL)
	}
	if r.Method == "" {
		r.Method = "GET"
		if r.Body != "" {
			r.Method = "POST"
		}
	}
	if r.Body != "" {
		var v any
		if err := json.Unmarshal([]byte(r.Body), &v); err != nil {
			return fmt.Errorf("the request body must be JSON (%v): %s", err, r.Body)
		}
		if !r.hasContentType() {
			r.Headers = append(r.Headers, Header{Name: "Content-Type", Value: "application/json"})
		}
	}
	if !strings.Contains(r.URL+r.Body+r.headerValues(), GoalPlaceholder) {
		return fmt.Errorf("put %s in the URL or the JSON body where the message goes", GoalPlaceholder)
	}
	return nil
}

// originOf is the scheme and authority of a URL as written: all before the path, the query
// or the fragment.
func originOf(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return scheme + "://" + rest
}

func (r *Request) hasContentType() bool {
	for _, h := range r.Headers {
		if strings.EqualFold(h.Name, "Content-Type") {
			return true
		}
	}
	return false
}

func (r *Request) headerValues() string {
	var b strings.Builder
	for _, h := range r.Headers {
		b.WriteString(h.Value)
	}
	return b.String()
}

// Literal makes what a source wrote data: every "{{" of it but the message's and the
// conversation's placeholders, which a draft puts in itself, becomes {{lbrace}}, which the
// hooks send as "{{". A source's {{env:GITHUB_TOKEN}} is then text the request carries, not
// the variable the hook would fill in and send.
func Literal(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		if p := GoalPlaceholder; strings.HasPrefix(s, p) {
			b.WriteString(p)
			s = s[len(p):]
			continue
		}
		if p := ConversationPlaceholder; strings.HasPrefix(s, p) {
			b.WriteString(p)
			s = s[len(p):]
			continue
		}
		b.WriteString("{{lbrace}}")
		s = s[2:]
	}
}

// Uses reports whether the request carries placeholder p.
func (r *Request) Uses(p string) bool { return strings.Contains(r.URL+r.Body+r.headerValues(), p) }

// pathPattern is the JSON path a response locator may be: $ then .name or [index] steps.
var pathPattern = regexp.MustCompile(`^\$((\.[A-Za-z_][A-Za-z0-9_-]*)|(\[[0-9]+\]))+$`)

// CheckPath refuses a locator the hooks cannot follow.
func CheckPath(flag, path string) error {
	if path != "" && !pathPattern.MatchString(path) {
		return fmt.Errorf("%s %q: write a path of .name and [index] steps from $, like $.choices[0].message.content", flag, path)
	}
	return nil
}
