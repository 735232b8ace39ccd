package scaffold

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/rookgen/internal/gen"
)

// goFiles are the profile and the registration file of a Go agent called in the test's
// process (init --go): the registration's stand-in agent answers each message with
// itself until its constructor is replaced by the agent's own.
func goFiles(root string, o Options, exists func(string) bool) (files []File, kept []string, err error) {
	profileData := fmt.Appendf(nil, schemaLine("profile")+`# Profile %[2]s of agent %[1]s, written by rookgen init --go: the agent is Go code called in
# the test's own process. scenarios/%[1]s/agent_test.go registers it; each phase is one of
# its methods (Execute, and Prepare, Open, Close, Collect when it has them). Set the
# capabilities its replies report.
id: %[2]s
name: %[1]s (%[2]s)
hooks:
  go: %[1]s
  execute: {timeout_seconds: 60}
capabilities:
  multi_turn: false
  calls: false
  usage: false
concurrency: 1
`, o.Agent, o.Profile)
	register := fmt.Appendf(nil, `package %[2]s

import (
	"context"

	"github.com/rookgo/rookgo/rooktest"
)

// The agent under test, called in the test's process: profiles/%[1]s/%[3]s.yaml says
// hooks: {go: %[1]s}. Make newAgent return your agent; a phase is a method of it
// (rooktest.Agent's Execute, and rooktest.Preparer, Opener, Closer and Collector's).
func init() { rooktest.RegisterAgent(%[1]q, newAgent) }

func newAgent() (rooktest.Agent, error) { return echo{}, nil }

// echo stands for the agent until newAgent makes it: it answers each message with itself.
type echo struct{}

// Execute is one turn: c.Message is the turn's message; what it returns is the reply.
func (echo) Execute(ctx context.Context, c rooktest.Call) (rooktest.Reply, error) {
	return rooktest.Reply{Output: "you said: " + c.Message}, nil
}
`, o.Agent, gen.PackageName(o.Agent), o.Profile)
	files = []File{{Path: "profiles/" + o.Agent + "/" + o.Profile + ".yaml", Data: profileData, Mode: 0o644}}
	if by := RegisteredIn(filepath.Join(root, "scenarios", o.Agent), o.Agent); by != "" {
		return files, []string{fmt.Sprintf("scenarios/%s/%s: it registers Go agent %s, which the new profile calls", o.Agent, by, o.Agent)}, nil
	}
	path := "scenarios/" + o.Agent + "/agent_test.go"
	if exists(path) {
		path = "scenarios/" + o.Agent + "/agent_" + gen.PackageName(o.Profile) + "_test.go"
	}
	return append(files, File{Path: path, Data: register, Mode: 0o644}), nil, nil
}

// RegisteredIn is the Go file of dir that registers Go agent name with
// rooktest.RegisterAgent, or "".
func RegisteredIn(dir, name string) string {
	entries, _ := os.ReadDir(dir) // no folder: nothing registered
	call := []byte("rooktest.RegisterAgent(" + strconv.Quote(name))
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && bytes.Contains(data, call) {
			return e.Name()
		}
	}
	return ""
}
