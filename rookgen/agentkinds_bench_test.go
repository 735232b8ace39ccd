package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// echoGoHook is a hook written in Go, built to a binary: the Go command hook of
// BenchmarkAgentKinds.
const echoGoHook = `package main

import (
	"encoding/json"
	"io"
	"os"
)

func main() {
	goal, _ := io.ReadAll(os.Stdin)
	_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"output": "echo: " + string(goal)})
}
`

// echoGoAgent is the same agent in the test's process.
const echoGoAgent = `package kinds_test

import (
	"context"

	"github.com/rookgo/rookgo/rooktest"
)

func init() { rooktest.RegisterAgent("echo", func() (rooktest.Agent, error) { return echo{}, nil }) }

type echo struct{}

func (echo) Execute(_ context.Context, c rooktest.Call) (rooktest.Reply, error) {
	return rooktest.Reply{Output: "echo: " + c.Message}, nil
}
`

// BenchmarkAgentKinds runs the same suite of 50 one-turn scenarios, one at a time, through
// an agent that echoes its message, reached three ways: a Node hook script, a Go command
// hook (a built binary), and a Go agent in the test's process. It reports each way's wall
// time and CPU time per turn, and the in-process and command hook's over the Node hook's.
// The three runs alternate which goes first. CPU is the test process's and its hooks': the
// hooks run under the runtime's supervisor, whose children's times the test process's
// rusage does not hold, so each hook's CPU is measured on the same hook started bare with
// the same stdin, 50 times an iteration, and added.
func BenchmarkAgentKinds(b *testing.B) {
	const scenarios = 50
	dir := newModule(b)
	write(b, dir, "profiles/kinds/hooks/echo.mjs", noopHook)
	write(b, dir, "hookbin/main.go", echoGoHook)
	hookBin := filepath.Join(b.TempDir(), "echo-hook")
	if res, err := measure(dir, []string{goflags}, "go", "build", "-o", hookBin, "./hookbin"); err != nil {
		b.Fatalf("build the Go hook: %v\n%s", err, res.out)
	}
	write(b, dir, "profiles/kinds/node.yaml", "id: node\nhooks: {execute: hooks/echo.mjs}\n")
	write(b, dir, "profiles/kinds/gocmd.yaml", fmt.Sprintf("id: gocmd\nhooks: {execute: {command: [%q]}}\n", hookBin))
	write(b, dir, "profiles/kinds/inproc.yaml", "id: inproc\nhooks: {go: echo}\n")
	write(b, dir, "scenarios/kinds/agent_test.go", echoGoAgent)
	for i := 1; i <= scenarios; i++ {
		write(b, dir, fmt.Sprintf("scenarios/kinds/SC-%03d.yaml", i), fmt.Sprintf("id: SC-%03d\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: 'echo: hello'}}\n", i))
	}
	rookgen(b, dir)
	bin, _ := compileSuite(b, dir, "kinds")
	kinds := []struct{ name, test string }{{"node", "TestNode"}, {"gocmd", "TestGocmd"}, {"inproc", "TestInproc"}}
	wall := map[string]time.Duration{}
	cpu := map[string]time.Duration{}
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("needs node")
	}
	bare := map[string][]string{"node": {node, filepath.Join(dir, "profiles/kinds/hooks/echo.mjs"), "execute"}, "gocmd": {hookBin, "execute"}}
	i := 0
	for b.Loop() {
		for kind, argv := range bare {
			for range scenarios {
				cpu[kind] += bareCPU(b, argv, "hello")
			}
		}
		for j := range kinds {
			k := kinds[(i+j)%len(kinds)]
			res := runSuite(b, bin, filepath.Join(dir, "scenarios/kinds"), "-test.run", "^"+k.test+"$", "-test.v", "-rook.dir="+b.TempDir())
			passed(b, res, scenarios)
			wall[k.name] += res.wall
			cpu[k.name] += res.cpu
		}
		i++
	}
	turns := float64(b.N * scenarios)
	for _, k := range kinds {
		b.ReportMetric(float64(wall[k.name])/float64(time.Millisecond)/turns, k.name+"-wall-ms/turn")
		b.ReportMetric(float64(cpu[k.name])/float64(time.Millisecond)/turns, k.name+"-cpu-ms/turn")
	}
	b.ReportMetric(float64(wall["inproc"])/float64(wall["node"]), "inproc/node-wall")
	b.ReportMetric(float64(cpu["inproc"])/float64(cpu["node"]), "inproc/node-cpu")
	b.ReportMetric(float64(wall["gocmd"])/float64(wall["node"]), "gocmd/node-wall")
}

// bareCPU runs argv once with stdin, as the runtime runs a hook, and returns its CPU time.
func bareCPU(b *testing.B, argv []string, stdin string) time.Duration {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(stdin)
	if out, err := cmd.Output(); err != nil {
		b.Fatalf("%v: %v\n%s", argv, err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
