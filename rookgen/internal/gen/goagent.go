package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
)

// unregistered names the profiles of a whose hooks are a Go agent that no hand-written
// file of the agent's test package registers (rooktest.RegisterAgent with the name as a
// literal): the generated test would fail at once. A package that registers an agent under
// a name it computes is taken at its word.
func unregistered(root string, a Agent) []error {
	var want []int
	for i, p := range a.Profiles {
		if p.GoAgent != "" && p.Recorded == nil { // recorded traces are replayed by the runtime
			want = append(want, i)
		}
	}
	if len(want) == 0 {
		return nil
	}
	names, computed := registrations(filepath.Join(root, "scenarios", a.Name))
	if computed {
		return nil
	}
	var problems []error
	for _, i := range want {
		p := a.Profiles[i]
		if names[p.GoAgent] {
			continue
		}
		problems = append(problems, p.Err(p.GoAgentAt, "hooks.go", fmt.Errorf("names the Go agent %q, and no file of scenarios/%s registers it: write scenarios/%s/agent_test.go with func init() { rooktest.RegisterAgent(%q, <a func() (rooktest.Agent, error) that makes it>) }",
			p.GoAgent, a.Name, a.Name, p.GoAgent)))
	}
	return problems
}

// registrations are the names the Go files of dir (but the generated ones) register agents
// under; computed says one is registered under a name that is not a literal.
func registrations(dir string) (names map[string]bool, computed bool) {
	names = map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_rook_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			continue // the go command will say what is wrong with it
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "RegisterAgent" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				computed = true
				return true
			}
			if name, err := strconv.Unquote(lit.Value); err == nil {
				names[name] = true
			}
			return true
		})
	}
	return names, computed
}
