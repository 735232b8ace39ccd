package docs_test

import (
	"go/types"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// What following one attempt through the runtime may cost a reader: the files its calls
// cross, and the times it comes back to a file it had left. docs/development.md says how
// the attempt reads; this holds it there.
const (
	attemptFilesAtMost   = 12
	attemptReturnsAtMost = 48
)

// TestAnAttemptReadsInFewFiles follows the calls of one scenario attempt, from
// (*lifecycle.Run).attempt, in source order, depth first, each function once (closures
// where they are made), through the functions of the lifecycle package (the calls it makes
// into other packages are theirs to read): the call graph a reader walks. -v prints the walk.
func TestAnAttemptReadsInFewFiles(t *testing.T) {
	const lifecycle = "github.com/rookgo/rookgo/rooktest/internal/lifecycle"
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
		packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports, Dir: repo}
	pkgs, err := packages.Load(cfg, lifecycle)
	if err != nil {
		t.Fatalf("load %s: %v", lifecycle, err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("load %s: it does not type-check", lifecycle)
	}
	prog, ssaPkgs := ssautil.Packages(pkgs, 0)
	prog.Build()
	run := ssaPkgs[0].Type("Run")
	if run == nil {
		t.Fatal("lifecycle has no type Run")
	}
	sel := prog.MethodSets.MethodSet(types.NewPointer(run.Type())).Lookup(run.Object().Pkg(), "attempt")
	if sel == nil {
		t.Fatal("lifecycle's Run has no method attempt")
	}
	start := prog.MethodValue(sel)

	file := func(fn *ssa.Function) string {
		return filepath.Base(prog.Fset.Position(fn.Pos()).Filename)
	}
	inPackage := func(fn *ssa.Function) bool {
		for p := fn; p != nil; p = p.Parent() {
			if p.Pkg != nil {
				return p.Pkg.Pkg.Path() == lifecycle && !strings.HasSuffix(file(fn), "_test.go")
			}
		}
		return false
	}
	seen := map[*ssa.Function]bool{}
	var walk []string // the file control is in, each time it changes
	move := func(f string) {
		if len(walk) == 0 || walk[len(walk)-1] != f {
			walk = append(walk, f)
		}
	}
	var visit func(fn *ssa.Function, depth int)
	visit = func(fn *ssa.Function, depth int) {
		seen[fn] = true
		here := file(fn)
		move(here)
		t.Logf("%s%s  (%s)", strings.Repeat("  ", depth), fn.Name(), here)
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				var callee *ssa.Function
				switch v := ins.(type) {
				case ssa.CallInstruction:
					callee = v.Common().StaticCallee()
				case *ssa.MakeClosure:
					callee, _ = v.Fn.(*ssa.Function)
				}
				if callee != nil && !seen[callee] && inPackage(callee) {
					visit(callee, depth+1)
					move(here)
				}
			}
		}
	}
	visit(start, 0)

	files, left := map[string]bool{}, map[string]bool{}
	returns := 0
	for i, f := range walk {
		if i > 0 {
			left[walk[i-1]] = true
		}
		if left[f] {
			returns++
		}
		files[f] = true
	}
	t.Logf("%d functions, %d files, %d returns to a file left", len(seen), len(files), returns)
	if len(seen) < 30 {
		t.Fatalf("the walk found %d functions: it did not follow the attempt", len(seen))
	}
	if len(files) > attemptFilesAtMost {
		t.Errorf("following an attempt crosses %d files, more than %d: keep its steps with the attempt (attempt.go)", len(files), attemptFilesAtMost)
	}
	if returns > attemptReturnsAtMost {
		t.Errorf("following an attempt comes back to a file it had left %d times, more than %d", returns, attemptReturnsAtMost)
	}
}
