// Command rookgen turns profiles and scenarios into go test files.
//
// Run from anywhere inside a module laid out as
//
//	profiles/<agent>/<profile-id>.yaml    how to reach the agent (hook scripts)
//	scenarios/<agent>/<scenario-id>.yaml  one scenario per file
//
// it writes scenarios/<agent>/<profile>_rook_test.go for every profile, and deletes the
// generated files whose profile is gone. With -check it writes nothing and exits 1, naming
// the stale files, when the generated files differ from what it would write.
//
// Put this directive in a Go file next to the generated packages (scenarios/doc.go) so that
// go generate ./... regenerates them:
//
//	//go:generate go run github.com/rookgo/rookgo/rookgen
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
	"github.com/rookgo/rookgo/rookgen/internal/gen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// subcommands are rookgen's commands other than generating, by their first argument.
var subcommands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"prune": prune, "report": reportCmd, "init": initCmd, "check": checkCmd, "probe": probeCmd,
	"calibrate": calibrateCmd, "schema": schemaCmd, "judge-check": judgeCheckCmd, "gate": gateCmd,
	"affected": affectedCmd, "ui": uiCmd, "shards": shardsCmd, "junit": junitCmd, "attest": attestCmd, "comment": commentCmd,
	"draft": draftCmd,
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if cmd, ok := subcommands[args[0]]; ok {
			return cmd(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("rookgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	check := fs.Bool("check", false, "write nothing; exit 1 naming the generated files that are stale")
	strict := fs.Bool("strict", false, "treat warnings (ignored files and keys) as errors")
	lenient := fs.Bool("lenient", false, "keep a scenario key that reads like a misspelt one (forbidden_text) as a warning, not an error")
	watchFlag := fs.Bool("watch", false, "after generating, regenerate whenever a profile or scenario changes")
	rootFlag := fs.String("root", "", "module root (default: the directory of the go.mod above the working directory)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: rookgen [-check] [-strict] [-lenient] [-watch] [-root dir]\n       rookgen init <agent> --command '<command line with {{goal}}>' [--lang node|python|go] [--profile id] [-root dir]\n       rookgen init <agent> --curl '<cURL command with {{goal}}>' --reply '$.path' [--conversation '$.path'] [--calls '$.path'] [--usage '$.path'] [--lang node|python|go] [--profile id] [-root dir]\n       rookgen init <agent> --from <openapi.yaml|recording.har|note.md|URL> | --prompt '<how to call the agent>' [--server URL] [--operation id] [--no-probe] [--lang node|python|go] [--profile id] [-root dir]\n       rookgen init <agent> --go [--profile id] [-root dir]\n       rookgen check [-strict] [-signals] [-root dir]\n       rookgen probe <agent>/<profile> [-write] [-root dir]\n       rookgen report [-run ID | -agent A [-profile P]] [-base ID] [-format md|json|yaml|html] [-o FILE] | -site DIR\n       rookgen prune [-keep N] [-dir records] [-n]\n       rookgen calibrate -agent A [-target 0.9] [-dir records]\n       rookgen judge-check [-url URL] [-model M] [-min 0.8]\n       rookgen schema [-o DIR]\n       rookgen gate [-base ID] [-max-regressions N] [-alpha 0.05]\n       rookgen affected [-base REF] [-dir records]\n       rookgen ui [-addr 127.0.0.1:0] [-open] [-dir records]\n       rookgen shards -n N [-from RUN|latest] [-o FILE] [-dir records]\n       rookgen junit [-o junit.xml] [go-test-json-file]\n       rookgen attest [-run ID | -agent A [-profile P]] [-o statement.json] [-predicate FILE] [-checksums FILE] [-unable failed|warned]\n       rookgen comment [-run ID | -agent A [-profile P]] [-base ID] [-n]\n       rookgen draft scenarios <agent> (-from FILE|URL | -prompt TEXT) [-n 5] [-root dir]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rookgen: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	root, err := moduleRoot(*rootFlag)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen: %v\n", err)
		return 1
	}
	changes, warnings, err := plan(root, *lenient)
	if err != nil {
		fmt.Fprintf(stderr, "rookgen: %v\n", err)
		return 1
	}
	if warn(stderr, "rookgen", warnings, *strict) {
		fmt.Fprintln(stderr, "rookgen: -strict: fix the files above, or run without -strict")
		return 1
	}
	if *check {
		if len(changes) == 0 {
			return 0
		}
		for _, c := range changes {
			fmt.Fprintf(stderr, "rookgen: %s is stale (%s)\n", c.path, c.what)
		}
		fmt.Fprintf(stderr, "rookgen: run go generate ./... (or %s) and commit the result\n", spec.GeneratorCommand(root))
		return 1
	}
	if err := apply(root, changes, stdout); err != nil {
		fmt.Fprintf(stderr, "rookgen: %v\n", err)
		return 1
	}
	if *watchFlag {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := watch(ctx, root, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "rookgen: %v\n", err)
			return 1
		}
	}
	return 0
}

// warn prints generation's warnings, as errors under -strict, and reports whether they
// fail the command.
func warn(stderr io.Writer, cmd string, warnings []string, strict bool) bool {
	for _, w := range warnings {
		if strict {
			fmt.Fprintf(stderr, "%s: %s\n", cmd, w)
		} else {
			fmt.Fprintf(stderr, "%s: warning: %s\n", cmd, w)
		}
	}
	return strict && len(warnings) > 0
}

// leadingArg takes a subcommand's first argument when it comes before the flags
// (rookgen init myagent --command ...), where flag parsing would stop at it.
func leadingArg(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

// moduleRoot is the -root flag's value, or the module root above the working directory.
func moduleRoot(flagged string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	root, _, err := spec.ModuleRootOfWorkingDir()
	if err != nil {
		return "", fmt.Errorf("%w; run rookgen inside a Go module (go mod init), or pass -root", err)
	}
	return root, nil
}

// apply writes and deletes the generated files plan decided on.
func apply(root string, changes []change, stdout io.Writer) error {
	for _, c := range changes {
		full := filepath.Join(root, filepath.FromSlash(c.path))
		var err error
		if c.data == nil {
			err = os.Remove(full)
		} else {
			// Atomically: a full disk leaves the old file, never a part of the new one.
			err = store.WriteFile(full, c.data)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "rookgen: %s %s\n", c.verb(), c.path)
	}
	return nil
}

type change struct {
	path string
	data []byte // nil: delete
	what string
}

var literalRE = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)

// sameLiterals reports whether two generated files hold the same string literals (paths,
// hashes, ids, subtest names) in the same order: then they differ in form only.
func sameLiterals(a, b []byte) bool {
	la, lb := literalRE.FindAll(a, -1), literalRE.FindAll(b, -1)
	if len(la) != len(lb) {
		return false
	}
	for i := range la {
		if !bytes.Equal(la[i], lb[i]) {
			return false
		}
	}
	return true
}

func (c change) verb() string {
	if c.data == nil {
		return "deleted"
	}
	return "wrote"
}

// plan compares what Generate returns with what is on disk, and lints the inputs: a
// misspelt-looking scenario key is an error, or with lenient a warning.
func plan(root string, lenient bool) ([]change, []string, error) {
	agents, err := gen.Load(root)
	if err != nil {
		return nil, nil, err
	}
	warnings := gen.Lint(root, agents)
	if typos := gen.Typos(root, agents); len(typos) > 0 && !lenient {
		return nil, nil, fmt.Errorf("%s\n(a key that reads like a misspelt one is refused; run with -lenient to keep it as a warning)", strings.Join(typos, "\n"))
	} else {
		warnings = append(warnings, typos...)
	}
	want, err := gen.Generate(agents)
	if err != nil {
		return nil, nil, err
	}
	have, err := gen.Existing(root)
	if err != nil {
		return nil, nil, err
	}
	if len(agents) == 0 && len(have) == 0 {
		return nil, nil, fmt.Errorf("no profile under %s, so there is nothing to generate: write one with rookgen init <agent> --command '<command line with {{goal}}>' (or --curl, or --from an OpenAPI document), or run rookgen in the module that holds profiles/",
			filepath.Join(root, "profiles"))
	}
	var changes []change
	for p, data := range want {
		old, ok := have[p]
		if !ok {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
				return nil, nil, fmt.Errorf("%s exists and was not generated by rookgen; move it away", p)
			}
			changes = append(changes, change{p, data, "missing"})
		} else if !bytes.Equal(old, data) {
			why := "differs from its profile and scenarios"
			if sameLiterals(old, data) {
				why = "formatting only: the YAML is unchanged, the file was generated by another rookgen or edited"
			}
			changes = append(changes, change{p, data, why})
		}
	}
	for p := range have {
		if _, ok := want[p]; ok {
			continue
		}
		why := "its profile is gone"
		if gen.IsOldFileName(p) {
			why = "an earlier rookgen's name; generated files are now named <profile>_rook_test.go"
		}
		changes = append(changes, change{p, nil, why})
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].path < changes[j].path })
	return changes, warnings, nil
}
