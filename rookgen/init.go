package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/rookgen/internal/scaffold"
)

// initCmd is rookgen init <agent> --command '...': it writes a profile, its hook script, a
// first scenario, the go:generate directive and the records' .gitignore entry, then
// generates, so that go test ./scenarios/... runs at once. It never overwrites a file.
func initCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rookgen init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	command := fs.String("command", "", "the agent's command line; "+scaffold.GoalPlaceholder+" in it is replaced by each message, else the message goes on its stdin")
	curl := fs.String("curl", "", "a cURL command that asks the agent something, with "+scaffold.GoalPlaceholder+" where the message goes (and "+scaffold.ConversationPlaceholder+" where a later turn sends the conversation id)")
	reply := fs.String("reply", "", "with --curl: the JSON path of the reply in the response, like $.choices[0].message.content")
	conversation := fs.String("conversation", "", "with --curl: the JSON path of the conversation id in the response")
	calls := fs.String("calls", "", "with --curl: the JSON path of the tool calls in the response")
	usage := fs.String("usage", "", "with --curl: the JSON path of the token usage in the response")
	lang := fs.String("lang", "node", "the hook script's language: node, python or go")
	goAgent := fs.Bool("go", false, "the agent is Go code in this module, called in the test's process: write a profile whose hooks are the agent, and scenarios/<agent>/agent_test.go, which registers it")
	profileID := fs.String("profile", "local", "the profile id (profiles/<agent>/<id>.yaml)")
	var from fromFlags
	fs.StringVar(&from.from, "from", "", "write the profile from what says how to reach the agent: an OpenAPI document (JSON or YAML), a HAR export, or a text (a note, a docs page) that a model reads; a file or an http(s) URL")
	fs.StringVar(&from.prompt, "prompt", "", "write the profile from this text, read by a model (ROOK_DRAFT_URL and ROOK_DRAFT_MODEL, else the judge's)")
	fs.StringVar(&from.server, "server", "", "with --from or --prompt: where the agent runs, replacing the document's server (its base URL) or the recording's scheme, host and port")
	fs.StringVar(&from.operation, "operation", "", "with --from: the request to use when the source has several: an operationId or 'METHOD /path'")
	fs.BoolVar(&from.noProbe, "no-probe", false, "with --from or --prompt: write the profile without probing the agent")
	rootFlag := fs.String("root", "", "module root (default: the directory of the go.mod above the working directory)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rookgen init <agent> --command '<command line with "+scaffold.GoalPlaceholder+">' [--lang node|python|go] [--profile id] [-root dir]\n       rookgen init <agent> --curl '<cURL command with "+scaffold.GoalPlaceholder+">' --reply '$.path' [--conversation '$.path'] [--calls '$.path'] [--usage '$.path'] [--lang node|python|go] [--profile id] [-root dir]\n       rookgen init <agent> --from <openapi.yaml|recording.har|note.md|URL> [--server URL] [--operation id] [--no-probe] [--lang ...] [--profile id] [-root dir]\n       rookgen init <agent> --prompt '<how to call the agent>' [--server URL] [--no-probe] [--lang ...] [--profile id] [-root dir]\n       rookgen init <agent> --go [--profile id] [-root dir]")
		fs.PrintDefaults()
	}
	agent, args := leadingArg(args)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if agent == "" && fs.NArg() > 0 {
		agent = fs.Arg(0)
	} else if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rookgen init: unexpected argument %q (quote the command line as one argument of --command)\n", fs.Arg(0))
		return 2
	}
	if agent == "" {
		fs.Usage()
		return 2
	}
	root, err := moduleRoot(*rootFlag)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen init: %v\n", err)
		return 1
	}
	opts := scaffold.Options{Agent: agent, Profile: *profileID, Lang: *lang, Generate: spec.GeneratorCommand(root),
		Reply: *reply, Conversation: *conversation, Calls: *calls, Usage: *usage, Go: *goAgent}
	if opts.Command, err = scaffold.Split(*command); err != nil {
		fmt.Fprintf(stderr, "rookgen init: --command: %v\n", err)
		return 2
	}
	if *curl != "" {
		if opts.Curl, err = scaffold.ParseCurl(agent, *curl); err != nil {
			fmt.Fprintf(stderr, "rookgen init: --curl: %v\n", err)
			return 2
		}
	}
	if err := from.alone(*curl != "" || *command != "" || *goAgent); err != nil {
		fmt.Fprintf(stderr, "rookgen init: %v\n", err)
		return 2
	}
	if from.set() {
		if err := draftOptions(from, &opts, stdout); err != nil {
			fmt.Fprintf(stderr, "rookgen init: %v\n", err)
			return 1
		}
	}
	if code := writeScaffold(root, opts, stdout, stderr); code != 0 {
		return code
	}
	code := 0
	if from.set() && !from.noProbe {
		code = verifyDrafted(root, opts, opts.Generate, stdout, stderr)
	}
	initNext(stdout, root, opts, opts.Generate)
	return code
}

// writeScaffold writes the files init plans, each new, names them, and generates.
func writeScaffold(root string, opts scaffold.Options, stdout, stderr io.Writer) int {
	files, kept, err := scaffold.Plan(root, opts)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen init: %v\n", err)
		return 1
	}
	for _, k := range kept {
		fmt.Fprintf(stdout, "kept %s\n", k)
	}
	written, err := writeNew(root, files)
	for _, p := range written {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rookgen init: %v\n", err)
		return 1
	}
	changes, warnings, err := plan(root, false)
	if err == nil {
		err = apply(root, changes, stdout)
	}
	warn(stderr, "rookgen", warnings, false)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen init: generate: %v\n", err)
		return 1
	}
	return 0
}

// initNext says what init left to do: the credentials to set, and the next commands.
func initNext(stdout io.Writer, root string, opts scaffold.Options, gen string) {
	if len(opts.Command) > 0 {
		fmt.Fprintf(stdout, "\nthe hook runs %s in the module root (ROOK_WORKSPACE), as you would: a relative path in it is relative to the module root\n", opts.Command[0])
	}
	if opts.Curl != nil {
		for _, s := range opts.Curl.Secrets {
			fmt.Fprintf(stdout, "\n%s is a credential: it is not written anywhere; set %s to its value (the profile declares it a secret, redacted from every record)\n", s.Purpose, s.Env)
		}
	}
	fmt.Fprintln(stdout, "\nnext:")
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  go mod tidy\t# adds what the generated tests import (rooktest's dependencies)\n")
	if opts.Go {
		by := scaffold.RegisteredIn(filepath.Join(root, "scenarios", opts.Agent), opts.Agent)
		fmt.Fprintf(tw, "  edit scenarios/%s/%s\t# make newAgent return your agent\n", opts.Agent, by)
	} else {
		fmt.Fprintf(tw, "  %s probe %s/%s\t# call the hook once: what came back, what to fix\n", gen, opts.Agent, opts.Profile)
	}
	fmt.Fprintf(tw, "  go test ./scenarios/%s\t# run SC-001 against the agent\n", opts.Agent)
	fmt.Fprintf(tw, "  go generate ./scenarios/...\t# after editing or adding scenarios and profiles\n")
	_ = tw.Flush() // stdout: nothing to do about a failed print
}

// linked is the first of the folders and the file of rel (under root) that is a link, or
// "" when none is: what does not exist yet init makes, as a folder or a file of its own.
func linked(root, rel string) string {
	cur := root
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		cur = filepath.Join(cur, part)
		info, err := os.Lstat(cur)
		if err != nil {
			return ""
		}
		if info.Mode()&os.ModeSymlink != 0 {
			return cur
		}
	}
	return ""
}

// writeNew writes files under root, each new (a file that appeared meanwhile is not
// overwritten) or appended to, and returns the paths written.
func writeNew(root string, files []scaffold.File) ([]string, error) {
	for _, f := range files {
		if l := linked(root, f.Path); l != "" {
			return nil, fmt.Errorf("write %s: %s is a link, and init writes nothing through a link (it could lead out of the module): nothing was written", f.Path, l)
		}
	}
	var written []string
	for _, f := range files {
		full := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return written, fmt.Errorf("write %s: %w", f.Path, err)
		}
		flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
		mode := f.Mode
		if f.Append {
			flags = os.O_WRONLY | os.O_APPEND
		}
		out, err := os.OpenFile(full, flags, mode)
		if err != nil {
			return written, fmt.Errorf("write %s: %w", f.Path, err)
		}
		_, err = out.Write(f.Data)
		err = errors.Join(err, out.Close())
		if err != nil {
			return written, fmt.Errorf("write %s: %w", f.Path, err)
		}
		written = append(written, f.Path)
	}
	return written, nil
}
