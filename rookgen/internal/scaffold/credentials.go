package scaffold

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/rookgo/rookgo/internal/spec"
)

// Secret is a variable the request reads a credential from: the profile declares it a
// secret, init says to set it, and no file init writes holds its value.
type Secret struct {
	Env string
	// Purpose says where the request uses it.
	Purpose string
}

// envPlaceholder is how a request template names a variable: the hooks fill it from the
// environment when they send the request, failing when it is unset.
func envPlaceholder(name string) string { return "{{env:" + name + "}}" }

// shellVar is a value that is only a shell variable ($TRAVEL_TOKEN, ${TRAVEL_TOKEN}): the
// cURL line already names the variable that holds the credential.
var shellVar = regexp.MustCompile(`^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$`)

// secret records that value is a credential the request sends as name (a header, a query
// parameter, a body key), and returns the placeholder that stands for it: the variable
// the cURL line names when value is one, else <AGENT>_<NAME>.
func (r *Request) secret(agent, name, purpose, value string) string {
	env := envName(agent, name)
	if m := shellVar.FindStringSubmatch(strings.TrimSpace(value)); m != nil {
		if named := m[1] + m[2]; r.own == nil || r.own[named] {
			env = named
		} else {
			purpose += fmt.Sprintf(" (the source names $%s, which is not read: a source never picks a variable of yours to send)", named)
		}
	}
	for _, s := range r.Secrets {
		if s.Env == env {
			return envPlaceholder(env)
		}
	}
	r.Secrets = append(r.Secrets, Secret{Env: env, Purpose: purpose})
	return envPlaceholder(env)
}

// headerCredentialWords mark a name as a credential's beyond what spec.LooksSecret reads
// in a variable's name: spellings headers and parameters use (Authentication, Cookie2,
// X-Session, X-Passcode).
var headerCredentialWords = []string{"AUTH", "COOKIE", "SESSION", "PASSCODE"}

// credentialName reports whether a header, parameter or key name reads as a credential's:
// as a variable's name would (spec.LooksSecret), or holding one of headerCredentialWords.
func credentialName(name string) bool {
	if spec.LooksSecret(name) || shortCredentialNames[strings.ToLower(strings.Trim(name, " -_"))] {
		return true
	}
	upper := strings.ToUpper(name)
	for _, w := range headerCredentialWords {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

// shortCredentialNames are whole names a credential goes under that are too short, or too
// common inside other names, to look for as parts (a "code" parameter is one; a
// "country_code" is not).
var shortCredentialNames = map[string]bool{"pw": true, "pwd": true, "pin": true, "sid": true, "code": true, "otp": true,
	"license": true, "licence": true, "license_key": true, "sig": true, "signature": true, "passcode": true, "apikey": true, "key": true}

// credentialValue reports whether a value reads as a credential whatever its name: a
// well-known token's shape or a long mix of letters and digits (spec.ValueLooksSecret), a
// UUID, or 16 hex digits and more.
func credentialValue(v string) bool {
	v = strings.TrimSpace(v)
	return !strings.Contains(v, "{{") && (spec.ValueLooksSecret(v) || uuidRE.MatchString(v) || hexTokenRE.MatchString(v))
}

var (
	uuidRE     = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	hexTokenRE = regexp.MustCompile(`^[0-9a-fA-F]{16,}$`)
)

// authSchemes are the header value prefixes whose rest is a credential.
var authSchemes = []string{"Bearer ", "Basic ", "Token ", "Digest "}

// headerValue is the template of a header's value: a credential becomes a placeholder
// (after its scheme: Bearer {{env:X}}, the variable holding the token alone). So does a
// value that is a shell variable, whatever the header's name: the command reads it from
// the environment, and so does the hook.
func (r *Request) headerValue(agent, name, value string) string {
	if strings.Contains(value, GoalPlaceholder) || strings.Contains(value, ConversationPlaceholder) {
		return value // the message or the conversation, not a credential
	}
	for _, s := range authSchemes {
		if len(value) > len(s) && strings.EqualFold(value[:len(s)], s) {
			return value[:len(s)] + r.secret(agent, name, fmt.Sprintf("The %s header's %scredential", name, s), value[len(s):])
		}
	}
	if credentialName(name) || shellVar.MatchString(strings.TrimSpace(value)) || credentialValue(value) {
		return r.secret(agent, name, fmt.Sprintf("The %s header of requests to the agent", name), value)
	}
	return value
}

// urlCredentials moves the credentials out of the URL: its user:password@ into an
// Authorization header read from a variable, and a credential-named query parameter's
// value into a placeholder.
func (r *Request) urlCredentials(agent string) {
	scheme, rest, ok := strings.Cut(r.URL, "://")
	if !ok {
		return
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if at := strings.LastIndexByte(rest[:end], '@'); at >= 0 {
		rest = rest[at+1:]
		r.addHeader(agent, "Authorization", "") // from the variable, as -u does
	}
	base, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery {
		frag := ""
		if i := strings.IndexByte(query, '#'); i >= 0 {
			query, frag = query[:i], query[i:]
		}
		params := strings.Split(query, "&")
		for i, p := range params {
			k, v, _ := strings.Cut(p, "=")
			if (credentialName(k) || shellVar.MatchString(v) || credentialValue(v)) && !strings.Contains(v, "{{") {
				params[i] = k + "=" + r.secret(agent, k, fmt.Sprintf("The %s query parameter of requests to the agent", k), v)
			}
		}
		rest = base + "?" + strings.Join(params, "&") + frag
	}
	r.URL = scheme + "://" + rest
}

// bodyCredentials replaces the string values of credential-named keys of the JSON body
// with placeholders. The body is written again only when it held one.
func (r *Request) bodyCredentials(agent string) error {
	if r.Body == "" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(r.Body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	found := false
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if s, ok := val.(string); ok && (credentialName(k) || shellVar.MatchString(s) || credentialValue(s)) && !strings.Contains(s, "{{") {
					x[k] = r.secret(agent, k, fmt.Sprintf("The %s of the request body", k), s)
					found = true
					continue
				}
				walk(val)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	if !found {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	r.Body = strings.TrimSpace(b.String())
	return nil
}
