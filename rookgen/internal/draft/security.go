package draft

import (
	"maps"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/rookgo/rookgo/rookgen/internal/scaffold"
)

// security writes the credential the operation's security asks for, as a shell variable
// (<AGENT>_TOKEN, <AGENT>_API_KEY, ...) that init --curl declares a secret: the first
// alternative the document lists whose every scheme a request header or query parameter
// can carry.
func (b *builder) security(doc *openapi3.T, op *operation) [][2]string {
	reqs := doc.Security
	if op.op.Security != nil {
		reqs = *op.op.Security
	}
	if len(reqs) == 0 {
		b.note("auth: the document declares no security for it; if the agent needs a credential, add its header to the hook's request")
		return nil
	}
	for _, alt := range reqs {
		if len(alt) == 0 {
			b.note("auth: none (the document makes a credential optional)")
			return nil
		}
		if headers, ok := b.schemes(doc, alt); ok {
			return headers
		}
	}
	b.note("auth: no security alternative of the document can be sent as a header or query parameter; add the credential to the hook's request")
	return nil
}

// schemes writes the credentials of one security alternative; false when one of its
// schemes is unknown or undefined.
func (b *builder) schemes(doc *openapi3.T, alt openapi3.SecurityRequirement) ([][2]string, bool) {
	var headers [][2]string
	prefix := scaffold.EnvWord(b.agent)
	for _, name := range slices.Sorted(maps.Keys(alt)) {
		if doc.Components == nil || doc.Components.SecuritySchemes[name] == nil || doc.Components.SecuritySchemes[name].Value == nil {
			return nil, false
		}
		ref := doc.Components.SecuritySchemes[name]
		s := ref.Value
		switch {
		case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"), s.Type == "oauth2", s.Type == "openIdConnect":
			env := b.own(prefix + "_TOKEN")
			headers = append(headers, [2]string{"Authorization", "Bearer $" + env})
			how := "a bearer token"
			if s.Type != "http" {
				how = "a bearer token from its " + s.Type + " flow"
			}
			b.note("auth: %s (%s), read from $%s", name, how, env)
		case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
			env := b.own(prefix + "_BASIC")
			headers = append(headers, [2]string{"Authorization", "Basic $" + env})
			b.note("auth: %s (HTTP basic), read from $%s: set it to the base64 of user:password", name, env)
		case s.Type == "apiKey" && s.In == "header":
			env := b.own(prefix + "_API_KEY")
			headers = append(headers, [2]string{s.Name, "$" + env})
			b.note("auth: %s (the %s header), read from $%s", name, s.Name, env)
		case s.Type == "apiKey" && s.In == "query":
			env := b.own(prefix + "_API_KEY")
			b.query.Set(s.Name, "$"+env)
			b.note("auth: %s (the %s query parameter), read from $%s", name, s.Name, env)
		case s.Type == "apiKey" && s.In == "cookie":
			env := b.own(prefix + "_COOKIE")
			headers = append(headers, [2]string{"Cookie", s.Name + "=$" + env})
			b.note("auth: %s (the %s cookie), read from $%s: set it to %s=<the key>", name, s.Name, env, s.Name)
		default:
			return nil, false
		}
	}
	return headers, true
}
