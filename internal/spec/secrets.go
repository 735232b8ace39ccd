package spec

import (
	"fmt"
	"regexp"
	"strings"
)

// What of a profile's env is a secret, and what reads as one.

// IsSecret reports whether the variable's value is redacted from records and output: as
// its secret key says, or else when its name reads as a credential.
func (v EnvVar) IsSecret() bool {
	if v.Secret != nil {
		return *v.Secret
	}
	return LooksSecret(v.Variable) || PurposeSecret(v.Purpose)
}

// purposeWords are the words of an entry's purpose that say it holds a credential ("the
// agent token", "API key for staging").
var purposeWords = regexp.MustCompile(`(?i)\b(tokens?|keys?|api[ -]?keys?|passwords?|passwd|passphrases?|passcodes?|secrets?|credentials?|bearer|cookies?|jwt|pat|pins?)\b`)

// PurposeSecret reports whether an env entry's purpose says it holds a credential.
func PurposeSecret(purpose string) bool { return purposeWords.MatchString(purpose) }

// credentialWords are the name parts that make a variable a credential.
var credentialWords = map[string]bool{
	"TOKEN": true, "TOKENS": true, "KEY": true, "KEYS": true, "APIKEY": true, "SECRET": true, "SECRETS": true,
	"PASSWORD": true, "PASSWD": true, "PASS": true, "PWD": true, "PASSPHRASE": true, "CREDENTIAL": true,
	"CREDENTIALS": true, "CREDS": true, "AUTH": true, "AUTHORIZATION": true, "PAT": true, "BEARER": true,
	"COOKIE": true, "JWT": true, "PRIVATE": true, "SIGNATURE": true, "DSN": true,
}

// credentialParts are spellings that mark a credential inside a longer name part
// (GITHUBTOKEN, DBPASSWORD, CLIENTSECRET).
var credentialParts = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "APIKEY", "ACCESSKEY", "PRIVATEKEY"}

// LooksSecret reports whether a variable name reads as a credential: one of its parts
// (split on '_', '-' and '.') is TOKEN, KEY, SECRET, PASSWORD, CREDENTIAL, AUTH, PAT and
// the like, or holds TOKEN, SECRET, PASSWORD, CREDENTIAL, APIKEY or ACCESSKEY. Plain
// settings (DEMO_BASE_URL, DEMO_ENGINE, REGION) do not.
func LooksSecret(name string) bool {
	upper := strings.ToUpper(name)
	for _, w := range strings.FieldsFunc(upper, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if credentialWords[w] {
			return true
		}
		for _, part := range credentialParts {
			if strings.Contains(w, part) {
				return true
			}
		}
	}
	return false
}

// Undeclared says, for an entry with no secret: key whose name or value (value, as the
// environment has it) reads as a credential, how it is treated, as a run and rookgen check
// name it: "API_TOKEN has no secret: key; ...". "" for an entry that says, and for a
// setting (DEMO_BASE_URL): a setting with no secret: key is what Rook's profiles write,
// and is never redacted.
func (v EnvVar) Undeclared(value string) string {
	switch {
	case v.Secret != nil:
		return ""
	case LooksSecret(v.Variable):
		return fmt.Sprintf("%s has no secret: key; its name reads as a credential, so it is treated as a secret: say secret: true (or secret: false if it is not one)", v.Variable)
	case PurposeSecret(v.Purpose):
		return fmt.Sprintf("%s has no secret: key; its purpose (%q) names a credential, so it is treated as a secret: say secret: true (or secret: false if it is not one)", v.Variable, v.Purpose)
	case ValueLooksSecret(value):
		return fmt.Sprintf("%s has no secret: key; its value reads as a credential, so it is redacted: say secret: true (or secret: false if it is not one)", v.Variable)
	}
	return ""
}

// Setting reports whether the entry is a setting by default: no secret: key, and a name
// that does not read as a credential.
func (v EnvVar) Setting() bool {
	return v.Secret == nil && !LooksSecret(v.Variable) && !PurposeSecret(v.Purpose)
}

// credentialPrefixes begin the values of well-known kinds of credentials.
var credentialPrefixes = []string{"sk-", "sk_", "pk_", "rk_", "ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "glpat-",
	"xoxb-", "xoxp-", "xapp-", "AKIA", "ASIA", "AIza", "ya29.", "hf_", "npm_", "eyJ", "Bearer ", "Basic "}

// ValueLooksSecret reports whether a value reads as a credential whatever its variable is
// called: it starts like a well-known kind of token, or it is 20 or more characters of
// letters and digits mixed, with no spaces (a URL or a path is not).
func ValueLooksSecret(v string) bool {
	for _, p := range credentialPrefixes {
		if strings.HasPrefix(v, p) && len(v) > len(p)+4 {
			return true
		}
	}
	if len(v) < 20 || strings.ContainsAny(v, " \t\n") || strings.Contains(v, "://") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") {
		return false
	}
	letters, digits := false, false
	for _, c := range v {
		letters = letters || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		digits = digits || (c >= '0' && c <= '9')
	}
	return letters && digits
}

// SecretValues are the values of the profile's env entries that records and output must
// not show, by variable: every secret entry's, and a setting's whose value reads as a
// credential (fail closed where it costs nothing). getenv reads the environment.
func (p *Profile) SecretValues(getenv func(string) string) map[string]string {
	out := map[string]string{}
	for _, v := range p.Env {
		val := getenv(v.Variable)
		if v.IsSecret() || v.Secret == nil && ValueLooksSecret(val) {
			out[v.Variable] = val
		}
	}
	return out
}
