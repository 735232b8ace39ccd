package scaffold

import (
	"go/format"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/schematest"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/schemas"
)

// validate checks YAML against a JSON Schema, as an editor's YAML language server does.
func validate(t *testing.T, schema, doc []byte) error {
	t.Helper()
	return schematest.ValidateYAML(t, schematest.Compile(t, "schema.json", schema), doc)
}

func TestSplit(t *testing.T) {
	tests := []struct {
		line string
		want []string
		err  string
	}{
		{line: "my-agent --goal {{goal}}", want: []string{"my-agent", "--goal", "{{goal}}"}},
		{line: `sh -c 'echo "$1"' sh {{goal}}`, want: []string{"sh", "-c", `echo "$1"`, "sh", "{{goal}}"}},
		{line: `say "two words" "a \"quote\" and \$HOME" 'it''s'`, want: []string{"say", "two words", `a "quote" and $HOME`, "its"}},
		{line: "curl \\\n  -X POST  x\\ y", want: []string{"curl", "-X", "POST", "x y"}},
		{line: `empty "" ''`, want: []string{"empty", "", ""}},
		{line: "   ", want: nil},
		{line: `open 'quote`, err: "unterminated ' quote"},
		{line: `open "quote`, err: `unterminated " quote`},
		{line: `ends \`, err: "a backslash ends the line"},
	}
	for _, tc := range tests {
		got, err := Split(tc.line)
		if tc.err != "" {
			assert.EqualError(t, err, tc.err, tc.line)
			continue
		}
		require.NoError(t, err, tc.line)
		assert.Equal(t, tc.want, got, tc.line)
	}
}

// What init writes parses as Rook's profile and scenario formats, with the hook where the
// profile says it is.
func TestPlanWritesValidFiles(t *testing.T) {
	for _, lang := range []string{"node", "python", "go"} {
		t.Run(lang, func(t *testing.T) {
			root := t.TempDir()
			files, _, err := Plan(root, Options{Agent: "shop", Profile: "local", Lang: lang, Command: []string{"shop-agent", "--ask", "{{goal}}"}, Generate: "go tool rookgen"})
			require.NoError(t, err)
			byPath := map[string]File{}
			for _, f := range files {
				byPath[f.Path] = f
				full := filepath.Join(root, f.Path)
				require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
				require.NoError(t, os.WriteFile(full, f.Data, f.Mode))
			}
			hook := map[string]string{"node": "profiles/shop/hooks/shop.mjs", "python": "profiles/shop/hooks/shop.py", "go": "profiles/shop/hooks/shop/main.go"}[lang]
			const wantArgv = `["shop-agent","--ask","{{goal}}"]`
			assert.Contains(t, string(byPath[hook].Data), map[string]string{"node": "const COMMAND = " + wantArgv,
				"python": "COMMAND = json.loads(" + strconv.Quote(wantArgv) + ")", "go": "const commandJSON = " + strconv.Quote(wantArgv)}[lang])
			if lang == "go" {
				formatted, err := format.Source(byPath[hook].Data)
				require.NoError(t, err)
				assert.Equal(t, string(formatted), string(byPath[hook].Data), "the Go hook is gofmt-clean")
			}
			assert.Contains(t, string(byPath["scenarios/doc.go"].Data), "//go:generate go tool rookgen\n")
			assert.Equal(t, "# rookgen's run records\n/.rook/\n", string(byPath[".gitignore"].Data))

			p, err := spec.LoadProfile(filepath.Join(root, "profiles/shop/local.yaml"), filepath.Join(root, "profiles/shop"))
			require.NoError(t, err)
			argv := p.Hooks[spec.Execute].Argv(spec.Execute)
			script := argv[len(argv)-2] // the phase is appended
			if !filepath.IsAbs(script) {
				script = filepath.Join(p.AgentDir, script) // a command runs in the agent's folder
			}
			if lang == "go" {
				script = filepath.Join(script, "main.go") // go run ./hooks/shop
			}
			assert.Equal(t, filepath.Join(root, hook), script)
			for f, schema := range map[string][]byte{"profiles/shop/local.yaml": schemas.Profile, "scenarios/shop/SC-001.yaml": schemas.Scenario} {
				kind := strings.TrimSuffix(filepath.Base(filepath.Dir(filepath.Dir(f))), "s")
				assert.True(t, strings.HasPrefix(string(byPath[f].Data), "# yaml-language-server: $schema=../../.rookgo/schemas/"+kind+".schema.json\n"), f)
				written, err := os.ReadFile(filepath.Join(root, ".rookgo/schemas", kind+".schema.json"))
				require.NoError(t, err, "the schema the line points at is written beside the suite")
				assert.Equal(t, schema, written)
				assert.NoError(t, validate(t, schema, byPath[f].Data), f)
			}
			sc, err := scenario.Load(filepath.Join(root, "scenarios/shop/SC-001.yaml"))
			require.NoError(t, err)
			var kinds []string
			for _, c := range sc.Criteria {
				kinds = append(kinds, c.Kind)
			}
			assert.Equal(t, []string{"regex", "latency"}, kinds, "the commented criteria stay comments")
		})
	}
}

func TestPlanRefuses(t *testing.T) {
	root := t.TempDir()
	ok := Options{Agent: "shop", Profile: "local", Lang: "node", Command: []string{"x"}, Generate: "go tool rookgen"}
	for _, tc := range []struct {
		change func(*Options)
		err    string
	}{
		{func(o *Options) { o.Agent = "Shop" }, `agent "Shop": use lower-case letters`},
		{func(o *Options) { o.Profile = "my profile" }, `profile "my profile"`},
		{func(o *Options) { o.Command = nil }, "say how to reach agent shop: --curl"},
		{func(o *Options) { o.Lang = "ruby" }, `--lang "ruby": the hook can be written in node, python or go`},
	} {
		o := ok
		tc.change(&o)
		_, _, err := Plan(root, o)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tc.err)
	}

	// Nothing is overwritten: a profile the agent has is refused; a scenario it has is
	// kept, and SC-001 not written; an existing .gitignore is appended to.
	require.NoError(t, os.MkdirAll(filepath.Join(root, "scenarios/shop"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "scenarios/shop/SC-001.yaml"), []byte("id: SC-001\n"), 0o644))
	files, kept, err := Plan(root, ok)
	require.NoError(t, err)
	assert.Equal(t, []string{"scenarios/shop: its 1 scenario file(s), which the new profile runs too"}, kept)
	for _, f := range files {
		assert.NotEqual(t, "scenarios/shop/SC-001.yaml", f.Path)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "profiles/shop"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "profiles/shop/local.yaml"), []byte("id: local\n"), 0o644))
	_, _, err = Plan(root, ok)
	assert.EqualError(t, err, "profiles/shop/local.yaml already exists: agent shop has a profile local; give another --profile to add one (init writes only new files)")

	require.NoError(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("/bin"), 0o644))
	o := ok
	o.Agent = "other"
	files, _, err = Plan(root, o)
	require.NoError(t, err)
	last := files[len(files)-1]
	assert.Equal(t, File{Path: ".gitignore", Data: []byte("\n/.rook/\n"), Append: true}, last)
}

func TestParseCurl(t *testing.T) {
	r, err := ParseCurl("shop", `curl -sS https://agent.example/v1/chat \
  -H 'Authorization: Bearer sk-live-123' -H "X-Team: support" \
  --json '{"messages": [{"role": "user", "content": "{{goal}}"}], "session": "{{conversation}}"}'`)
	require.NoError(t, err)
	assert.Equal(t, &Request{Method: "POST", URL: "https://agent.example/v1/chat",
		Headers: []Header{{Name: "Authorization", Value: "Bearer {{env:SHOP_AUTHORIZATION}}"}, {Name: "X-Team", Value: "support"},
			{Name: "Content-Type", Value: "application/json"}, {Name: "Accept", Value: "application/json"}},
		Body:    `{"messages": [{"role": "user", "content": "{{goal}}"}], "session": "{{conversation}}"}`,
		Secrets: []Secret{{Env: "SHOP_AUTHORIZATION", Purpose: "The Authorization header's Bearer credential"}}}, r)
	assert.True(t, r.Uses(ConversationPlaceholder))

	r, err = ParseCurl("my-bot", `curl 'http://127.0.0.1:8080/ask?q={{goal}}' -H 'X-Api-Key: k-1'`)
	require.NoError(t, err)
	assert.Equal(t, "GET", r.Method)
	assert.Equal(t, []Header{{Name: "X-Api-Key", Value: "{{env:MY_BOT_X_API_KEY}}"}}, r.Headers)

	for line, want := range map[string]string{
		`wget http://x`:                          "a cURL command starts with curl",
		`curl -d '{"a": "{{goal}}"}'`:            "the cURL command has no URL",
		`curl ftp://x -d '{"a": "{{goal}}"}'`:    `URL "ftp://x": want http:// or https:// and a host`,
		`curl http://x -d 'q={{goal}}'`:          "the request body must be JSON",
		`curl http://x -d '{"a": "hello"}'`:      "put {{goal}} in the URL or the JSON body where the message goes",
		`curl http://x -o out.json`:              "cURL option -o is not one init reads",
		`curl http://x -H`:                       "cURL option -H needs a value",
		`curl http://x -H 'NoColon' -d '{}'`:     `header "NoColon" has no colon`,
		`curl http://x http://y`:                 "two URLs: http://x and http://y",
		`curl http://x -d '{"a": "{{goal}}"} -d`: "unterminated ' quote",
		// A scenario's text never chooses where the request and its credentials go.
		`curl 'http://{{goal}}/chat'`:                             "a placeholder in its scheme, host or port",
		`curl 'http://agent.example:{{goal}}/chat'`:               "a placeholder in its scheme, host or port",
		`curl 'http://agent{{conversation}}.example/?q={{goal}}'`: "a placeholder in its scheme, host or port",
		`curl 'http://u:{{goal}}@agent.example/chat'`:             "a placeholder in its scheme, host or port",
	} {
		_, err := ParseCurl("shop", line)
		require.Error(t, err, line)
		assert.Contains(t, err.Error(), want, line)
	}
}

func TestPlanCurl(t *testing.T) {
	req, err := ParseCurl("shop", `curl http://127.0.0.1:9/chat -H 'Authorization: Bearer x' -d '{"q": "{{goal}}", "c": "{{conversation}}"}'`)
	require.NoError(t, err)
	o := Options{Agent: "shop", Profile: "local", Lang: "node", Curl: req, Reply: "$.reply", Conversation: "$.id", Usage: "$.usage", Generate: "go tool rookgen"}
	files, _, err := Plan(t.TempDir(), o)
	require.NoError(t, err)
	assert.Contains(t, string(files[0].Data), "env:\n  - variable: SHOP_AUTHORIZATION\n    purpose: \"The Authorization header's Bearer credential\"\n    secret: true\n")
	assert.Contains(t, string(files[0].Data), "multi_turn: true\n  calls: false\n  usage: true\n")
	assert.NotContains(t, string(files[1].Data), "Bearer x", "a credential is never written")
	assert.NoError(t, validate(t, schemas.Profile, files[0].Data))
	goHook := o
	goHook.Lang = "go"
	goFiles, _, err := Plan(t.TempDir(), goHook)
	require.NoError(t, err)
	require.Equal(t, "profiles/shop/hooks/shop/main.go", goFiles[1].Path)
	formatted, err := format.Source(goFiles[1].Data)
	require.NoError(t, err)
	assert.Equal(t, string(formatted), string(goFiles[1].Data), "the Go hook is gofmt-clean")

	for msg, change := range map[string]func(*Options){
		"say where the reply is":                  func(o *Options) { o.Reply = "" },
		`--usage "usage": write a path`:           func(o *Options) { o.Usage = "usage" },
		"say where the response has it":           func(o *Options) { o.Conversation = "" },
		"give --curl or --command, not both":      func(o *Options) { o.Command = []string{"x"} },
		`--reply "$.a[x]": write a path of .name`: func(o *Options) { o.Reply = "$.a[x]" },
	} {
		bad := o
		change(&bad)
		_, _, err := Plan(t.TempDir(), bad)
		require.Error(t, err, msg)
		assert.Contains(t, err.Error(), msg)
	}
	noConv, err := ParseCurl("shop", `curl http://127.0.0.1:9/chat -d '{"q": "{{goal}}"}'`)
	require.NoError(t, err)
	bad := o
	bad.Curl = noConv
	_, _, err = Plan(t.TempDir(), bad)
	assert.ErrorContains(t, err, "--conversation $.id: put {{conversation}} in the cURL command")
}

// Every credential a cURL line can hold becomes a declared secret variable, read by the
// hook when it sends the request; the variable a line names is reused, and a Bearer
// header's variable holds the token alone. A value that is a shell variable is read from
// it, whatever its name. No file init writes holds a value.
func TestCurlCredentialsNeverWritten(t *testing.T) {
	line := `curl 'https://bob:hunter2pw@agent.example/chat?api_key=ak-111&lang=en&token=$TRAVEL_TOKEN&region=$TRAVEL_REGION' ` +
		`-H 'Authentication: au-222' -H 'Authorisation: Bearer $TRAVEL_BEARER' -H 'Cookie2: c2-333' ` +
		`-H 'X-Session: xs-444' -H 'X-Passcode: xp-555' -H 'X-Custom: Basic cHc6NjY2' -H 'X-Team: support' -H "X-Tenant: $TRAVEL_TENANT" ` +
		`-d '{"q": "{{goal}}", "auth": {"password": "pw-777", "user": "bob"}, "api_key": "ak-888", "org": "$TRAVEL_ORG", "n": 12345678901234567890}'`
	r, err := ParseCurl("travel", line)
	require.NoError(t, err)
	var envs []string
	for _, s := range r.Secrets {
		envs = append(envs, s.Env)
	}
	assert.ElementsMatch(t, []string{"TRAVEL_AUTHORIZATION", "TRAVEL_API_KEY", "TRAVEL_TOKEN", "TRAVEL_AUTHENTICATION", "TRAVEL_BEARER",
		"TRAVEL_COOKIE2", "TRAVEL_X_SESSION", "TRAVEL_X_PASSCODE", "TRAVEL_X_CUSTOM", "TRAVEL_PASSWORD", "TRAVEL_REGION", "TRAVEL_TENANT", "TRAVEL_ORG"}, envs)
	assert.Equal(t, "https://agent.example/chat?api_key={{env:TRAVEL_API_KEY}}&lang=en&token={{env:TRAVEL_TOKEN}}&region={{env:TRAVEL_REGION}}", r.URL)
	headers := map[string]string{}
	for _, h := range r.Headers {
		headers[h.Name] = h.Value
	}
	assert.Equal(t, "Bearer {{env:TRAVEL_BEARER}}", headers["Authorisation"], "the variable the line names holds the token alone")
	assert.Equal(t, "Basic {{env:TRAVEL_X_CUSTOM}}", headers["X-Custom"])
	assert.Equal(t, "{{env:TRAVEL_AUTHORIZATION}}", headers["Authorization"], "user:password@ becomes the Authorization header's variable")
	assert.Equal(t, "support", headers["X-Team"])
	assert.Equal(t, "{{env:TRAVEL_TENANT}}", headers["X-Tenant"])
	assert.Contains(t, r.Body, `"org":"{{env:TRAVEL_ORG}}"`)
	assert.Contains(t, r.Body, `"n":12345678901234567890`, "the body's numbers keep their digits")

	for _, lang := range []string{"node", "python", "go"} {
		files, _, err := Plan(t.TempDir(), Options{Agent: "travel", Profile: "local", Lang: lang, Curl: r, Reply: "$.reply", Generate: "go tool rookgen"})
		require.NoError(t, err)
		for _, f := range files {
			for _, secret := range []string{"hunter2pw", "ak-111", "au-222", "c2-333", "xs-444", "xp-555", "cHc6NjY2", "pw-777", "ak-888"} {
				assert.NotContains(t, string(f.Data), secret, "%s (%s) holds a credential", f.Path, lang)
			}
		}
		assert.Contains(t, string(files[0].Data), "  - variable: TRAVEL_BEARER\n")
	}
}

// A scenarios/ folder that already holds a Go package gets a doc.go of that package, not a
// second package that would not build.
func TestDocGoJoinsTheExistingPackage(t *testing.T) {
	for _, tc := range []struct{ existing, name, want string }{
		{"helpers.go", "package agenttests\n", "package agenttests\n"},
		{"main_test.go", "package suites_test\n", "package suites\n"},
		{"", "", "package scenarios\n"},
	} {
		root := t.TempDir()
		if tc.existing != "" {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "scenarios"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "scenarios", tc.existing), []byte(tc.name), 0o644))
		}
		files, _, err := Plan(root, Options{Agent: "shop", Profile: "local", Lang: "node", Command: []string{"shop-agent", "{{goal}}"}, Generate: "go tool rookgen"})
		require.NoError(t, err)
		var doc string
		for _, f := range files {
			if f.Path == "scenarios/doc.go" {
				doc = string(f.Data)
			}
		}
		assert.Contains(t, doc, tc.want, tc.existing)
	}
}

// The credential guard reads names and values as classes: a short name a credential goes
// under (pw, pin, sid, code, license), and a value shaped like one whatever its name (a
// UUID, lower-case hex, a long mix of letters and digits) are read from variables, never
// written into the hook; a name that merely holds a short word ("country_code") and a
// plain value stay.
func TestTheCredentialGuardReadsClasses(t *testing.T) {
	const curl = `curl 'https://a.example/chat?code=a1b2c3&country_code=US&pin=4321' ` +
		`-H 'X-Device: 550e8400-e29b-41d4-a716-446655440000' -H 'X-Build: 0123456789abcdef0123' -H 'X-Locale: en-GB' ` +
		`-d '{"q": "{{goal}}", "pw": "hunter2", "license": "ABCD-1234", "sid": "s1", "tier": "gold"}'`
	r, err := ParseCurl("bot", curl)
	require.NoError(t, err)
	all := r.URL + " " + r.Body
	for _, h := range r.Headers {
		all += " " + h.Name + ": " + h.Value
	}
	for _, secret := range []string{"a1b2c3", "4321", "550e8400", "0123456789abcdef0123", "hunter2", "ABCD-1234", `"s1"`} {
		assert.NotContains(t, all, secret)
	}
	for _, kept := range []string{"country_code=US", "X-Locale: en-GB", `"tier":"gold"`} {
		assert.Contains(t, strings.ReplaceAll(all, `": "`, `":"`), kept)
	}
	assert.GreaterOrEqual(t, len(r.Secrets), 7, "%v", r.Secrets)
}

// What a source wrote is data: its own {{env:NAME}} is kept as text ({{lbrace}}, which the
// hooks send as "{{"), while the placeholders a draft puts in itself stay placeholders.
func TestLiteralKeepsASourcesPlaceholdersAsText(t *testing.T) {
	got := Literal(`curl https://a.example/chat -H 'X-Note: {{env:GITHUB_TOKEN}}' -d '{"q": "{{goal}}", "c": "{{conversation}}", "t": "{{ tpl }}"}'`)
	assert.Equal(t, `curl https://a.example/chat -H 'X-Note: {{lbrace}}env:GITHUB_TOKEN}}' -d '{"q": "{{goal}}", "c": "{{conversation}}", "t": "{{lbrace}} tpl }}"}'`, got)
	r, err := ParseCurl("bot", got)
	require.NoError(t, err)
	for _, s := range r.Secrets {
		assert.NotEqual(t, "GITHUB_TOKEN", s.Env, "no variable of the user's is read for the source's text")
	}
}
