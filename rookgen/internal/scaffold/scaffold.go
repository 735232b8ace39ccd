// Package scaffold writes what rookgen init starts a repository with: a profile and its hook
// script for one agent, a first scenario, the go:generate directive and the records' entry
// in .gitignore. It decides the files; the caller writes them.
package scaffold

import (
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/rookgo/rookgo/schemas"
)

// Options say what to scaffold.
type Options struct {
	// Agent is the agent's directory name under profiles/ and scenarios/.
	Agent string
	// Profile is the profile id (its file name).
	Profile string
	// Lang is the hook script's language: node, python or go.
	Lang string
	// Command is the agent's command line, split into arguments; {{goal}} in an argument
	// is replaced by the turn's message, and without one the message goes on its stdin.
	Command []string
	// Curl is an HTTP agent's request (ParseCurl), instead of Command. Reply is the JSON
	// path of the reply in its response; Conversation, Calls and Usage, when set, those of
	// the conversation id, the tool calls and the token usage.
	Curl                              *Request
	Reply, Conversation, Calls, Usage string
	// Go says the agent is Go code called in the test's process (init --go): a profile
	// whose hooks are the agent, and the file that registers it, instead of a hook script.
	Go bool
	// Generate is the go:generate command (workspace.GeneratorCommand).
	Generate string
}

// File is one file to write, relative to the module root (slash-separated).
type File struct {
	Path string
	Data []byte
	Mode os.FileMode
	// Append says Data is appended to an existing file (.gitignore), not a new file.
	Append bool
}

// GoalPlaceholder is replaced by the turn's message in a command line.
const GoalPlaceholder = "{{goal}}"

var idPattern = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// Plan returns the files to write into the module at root, or an error naming what is
// wrong with the options or what already exists: nothing is ever overwritten. For an agent
// the module already has, it adds the profile: its hook under a name of its own when the
// agent's is taken (hooks/<agent>-<profile>.mjs), the Go agent's registration only when no
// file of the agent's registers it, and SC-001 only when the agent has no scenario; kept
// says what it found and left as it was.
func Plan(root string, o Options) (files []File, kept []string, err error) {
	if !idPattern.MatchString(o.Agent) {
		return nil, nil, fmt.Errorf("agent %q: use lower-case letters, digits, - and _, starting with a letter (it names profiles/%s/ and scenarios/%s/)", o.Agent, o.Agent, o.Agent)
	}
	if !idPattern.MatchString(o.Profile) {
		return nil, nil, fmt.Errorf("profile %q: use lower-case letters, digits, - and _, starting with a letter (it names profiles/%s/%s.yaml)", o.Profile, o.Agent, o.Profile)
	}
	exists := func(rel string) bool {
		_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		return err == nil
	}
	if p := "profiles/" + o.Agent + "/" + o.Profile + ".yaml"; exists(p) {
		return nil, nil, fmt.Errorf("%s already exists: agent %s has a profile %s; give another --profile to add one (init writes only new files)", p, o.Agent, o.Profile)
	}
	if files, kept, err = reachFiles(root, o, exists); err != nil {
		return nil, nil, err
	}
	scenarioDir := "scenarios/" + o.Agent
	if ids := scenarioFiles(filepath.Join(root, filepath.FromSlash(scenarioDir))); len(ids) > 0 {
		kept = append(kept, fmt.Sprintf("%s: its %d scenario file(s), which the new profile runs too", scenarioDir, len(ids)))
	} else {
		files = append(files, File{Path: scenarioDir + "/SC-001.yaml", Data: fmt.Appendf(nil, schemaLine("scenario")+firstScenario, o.Agent), Mode: 0o644})
	}
	var exist []string
	for _, f := range files {
		if exists(f.Path) {
			exist = append(exist, f.Path)
		}
	}
	if len(exist) > 0 {
		return nil, nil, fmt.Errorf("%s already exist(s); init writes only new files (choose another agent or --profile, or remove them)", strings.Join(exist, ", "))
	}
	if !hasGenerate(filepath.Join(root, "scenarios")) {
		// scenarios/ may already hold a Go package: doc.go joins it rather than clash.
		pkg := packageIn(filepath.Join(root, "scenarios"))
		files = append(files, File{Path: "scenarios/doc.go", Mode: 0o644, Data: fmt.Appendf(nil, docGo, pkg, pkg, o.Generate)})
		if _, err := os.Lstat(filepath.Join(root, "scenarios", "doc.go")); err == nil {
			return nil, nil, fmt.Errorf("scenarios/doc.go exists without a go:generate line for rookgen; add //go:generate %s to it", o.Generate)
		}
	}
	// The schemas the files' first lines point at, in the repository: an editor validates
	// offline, on a private fork, and for whoever clones it. Ones already there are kept.
	for _, s := range []struct {
		name string
		data []byte
	}{{"profile.schema.json", schemas.Profile}, {"scenario.schema.json", schemas.Scenario}} {
		path := schemas.Dir + "/" + s.name
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(path))); err != nil {
			files = append(files, File{Path: path, Data: s.data, Mode: 0o644})
		}
	}
	if f, ok := gitignore(root); ok {
		files = append(files, f)
	}
	return files, kept, nil
}

// scenarioFiles are the scenario files (*.yaml, *.yml) in dir.
func scenarioFiles(dir string) []string {
	var out []string
	entries, _ := os.ReadDir(dir) // no folder: no scenario
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
			out = append(out, e.Name())
		}
	}
	return out
}

// reachFiles are the files that reach the agent: the profile, and its hook script or, for a
// Go agent, the file that registers it. A hook script the agent already has (another
// profile's) is left alone: this profile's is named after it too.
func reachFiles(root string, o Options, exists func(string) bool) (files []File, kept []string, err error) {
	if o.Go {
		if o.Curl != nil || len(o.Command) > 0 {
			return nil, nil, fmt.Errorf("give --go, --curl or --command, one of them")
		}
		return goFiles(root, o, exists)
	}
	hook, ok := hooks[o.Lang]
	if !ok {
		return nil, nil, fmt.Errorf("--lang %q: the hook can be written in node, python or go", o.Lang)
	}
	body, err := hookBody(o, hook)
	if err != nil {
		return nil, nil, err
	}
	script := hook.file(o.Agent)
	if exists("profiles/" + o.Agent + "/" + script) {
		kept = append(kept, "profiles/"+o.Agent+"/"+script+": another profile's hook")
		script = hook.file(o.Agent + "-" + o.Profile)
	}
	return []File{
		{Path: "profiles/" + o.Agent + "/" + o.Profile + ".yaml", Data: profile(o, script, hook), Mode: 0o644},
		{Path: "profiles/" + o.Agent + "/" + script, Data: body, Mode: 0o755},
	}, kept, nil
}

// packageIn is the package the Go files of dir belong to (a test-only folder's, less its
// _test), or scenarios when it holds none.
func packageIn(dir string) string {
	entries, _ := os.ReadDir(dir) // no folder yet: a package of its own
	name := ""
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		if !strings.HasSuffix(e.Name(), "_test.go") {
			return f.Name.Name
		}
		if name == "" {
			name = strings.TrimSuffix(f.Name.Name, "_test")
		}
	}
	if name == "" {
		return "scenarios"
	}
	return name
}

// hasGenerate reports whether a Go file in dir already runs rookgen from go:generate.
func hasGenerate(dir string) bool {
	entries, _ := os.ReadDir(dir) // no folder yet: no directive
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(data)) {
			if strings.HasPrefix(line, "//go:generate ") && strings.Contains(line, "rookgen") {
				return true
			}
		}
	}
	return false
}

// gitignore adds /.rook/ (the records) to the module's .gitignore, unless it is there.
func gitignore(root string) (File, bool) {
	const entry = "/.rook/\n"
	data, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		return File{Path: ".gitignore", Data: []byte("# rookgen's run records\n" + entry), Mode: 0o644}, true
	}
	for line := range strings.Lines(string(data)) {
		switch strings.TrimSpace(line) {
		case "/.rook/", "/.rook", ".rook/", ".rook":
			return File{}, false
		}
	}
	add := entry
	if len(data) > 0 && !strings.HasSuffix(string(data), "\n") {
		add = "\n" + add
	}
	return File{Path: ".gitignore", Data: []byte(add), Append: true}, true
}

// hookBody is the hook script: one that runs a command line, or one that sends the
// request of a cURL command.
func hookBody(o Options, h hookLang) ([]byte, error) {
	switch {
	case o.Curl != nil && len(o.Command) > 0:
		return nil, fmt.Errorf("give --curl or --command, not both")
	case o.Curl != nil:
		return httpHookBody(o, h)
	case len(o.Command) > 0:
		argv, err := json.Marshal(o.Command)
		if err != nil {
			return nil, fmt.Errorf("command: %w", err)
		}
		return fmt.Appendf(nil, h.body, o.Agent, h.literal(argv)), nil
	}
	return nil, fmt.Errorf("say how to reach agent %s: --curl '<a cURL command with %s in its body or URL>', --command '<its command line, with %s where the message goes>', or --go for an agent written in Go", o.Agent, GoalPlaceholder, GoalPlaceholder)
}

func httpHookBody(o Options, h hookLang) ([]byte, error) {
	if o.Reply == "" {
		return nil, fmt.Errorf("say where the reply is in the response: --reply '$.path' (for example $.choices[0].message.content)")
	}
	for _, p := range []struct{ flag, path string }{{"--reply", o.Reply}, {"--conversation", o.Conversation}, {"--calls", o.Calls}, {"--usage", o.Usage}} {
		if err := CheckPath(p.flag, p.path); err != nil {
			return nil, err
		}
	}
	switch uses := o.Curl.Uses(ConversationPlaceholder); {
	case o.Conversation != "" && !uses:
		return nil, fmt.Errorf("--conversation %s: put %s in the cURL command where the next turn sends the id back", o.Conversation, ConversationPlaceholder)
	case o.Conversation == "" && uses:
		return nil, fmt.Errorf("the cURL command sends %s: say where the response has it with --conversation '$.path'", ConversationPlaceholder)
	}
	cfg, err := json.Marshal(struct {
		Request      *Request `json:"request"`
		Reply        string   `json:"reply"`
		Conversation string   `json:"conversation,omitempty"`
		Calls        string   `json:"calls,omitempty"`
		Usage        string   `json:"usage,omitempty"`
	}{o.Curl, o.Reply, o.Conversation, o.Calls, o.Usage})
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	return fmt.Appendf(nil, h.http, o.Agent, h.literal(cfg)), nil
}

func profile(o Options, script string, h hookLang) []byte {
	command := h.run(script)
	what := "runs the agent's command line once per turn"
	capsNote := "  # The command answers one message at a time, with no conversation to continue.\n"
	if o.Curl != nil {
		what = "sends the agent's HTTP request once per turn"
		capsNote = ""
	}
	var env strings.Builder
	if o.Curl != nil {
		for _, sec := range o.Curl.Secrets {
			if env.Len() == 0 {
				env.WriteString("env:\n")
			}
			fmt.Fprintf(&env, "  - variable: %s\n    purpose: %q\n    secret: true\n", sec.Env, sec.Purpose)
		}
	}
	return fmt.Appendf(nil, schemaLine("profile")+`# Profile %[2]s of agent %[1]s, written by rookgen init: how a run reaches the agent.
# Its one hook, %[3]s, %[5]s and prints
# {"output": ...}. Add open, close, prepare or collect hooks, declare the variables they
# read under env, and set the capabilities the hooks report (see the hook contract).
id: %[2]s
name: %[1]s (%[2]s)
hooks:
  execute:
    %[4]s
    timeout_seconds: 60
%[6]scapabilities:
%[7]s  multi_turn: %[8]t
  calls: %[9]t
  usage: %[10]t
concurrency: 1
`, o.Agent, o.Profile, script, command, what, env.String(), capsNote, o.Conversation != "", o.Calls != "", o.Usage != "")
}

// schemaLine is the first line of a YAML file init writes: editors running the YAML
// language server complete and check the file against its schema.
func schemaLine(kind string) string {
	// Both kinds of file sit two folders below the module root (profiles/<agent>/,
	// scenarios/<agent>/), where the schemas are.
	return "# yaml-language-server: $schema=../../" + schemas.Dir + "/" + kind + ".schema.json\n"
}

const docGo = `// Package %s holds the agents' scenarios and the go tests rookgen generates from
// them, one package per agent: go test ./scenarios/... runs them all.
package %s

//go:generate %s
`

const firstScenario = `# A first scenario for agent %s, written by rookgen init. Say what the agent must do in
# the goal and the criteria; the commented criteria show the common kinds of check.
id: SC-001
title: The agent answers
goal: Hello! What can you help me with?
acceptance_criteria:
  - statement: The agent replies.
    check: regex
    params: {pattern: '\S'}
  - statement: The reply comes within a minute.
    check: latency
    params: {max_ms: 60000}
  # - statement: The reply names the product.
  #   check: contains
  #   params: {text: Acme}
  # - statement: The reply leaks no internal notes.
  #   check: not_contains
  #   params: {text: INTERNAL}
  # - statement: The agent looks the order up (the hooks must report calls).
  #   check: called
  #   params: {name: lookup_order}
  # - statement: The answer costs at most 500 tokens (the hooks must report usage).
  #   check: usage
  #   params: {total_max: 500}
  # - statement: The reply is polite and stays on topic (needs a judge model).
  #   check: llm_judge
`
