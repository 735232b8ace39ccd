package spec

// The module a run or a generation works in: its root, its records root, the command that
// runs the generator there, and the file it writes for a profile.

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// ModuleRoot returns the directory of the go.mod at or above dir, and the module path it declares
// (the directory's name when it declares none).
func ModuleRoot(dir string) (root, module string, err error) {
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			// Read as the go command reads it: comments, quotes and blocks included.
			if f, err := modfile.ParseLax("go.mod", data, nil); err == nil && f.Module != nil && f.Module.Mod.Path != "" {
				return dir, f.Module.Mod.Path, nil
			}
			return dir, filepath.Base(dir), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", errors.New("find module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// RootOfWorkingDir is Root of the working directory.
func ModuleRootOfWorkingDir() (root, module string, err error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", "", fmt.Errorf("find module root: %w", err)
	}
	return ModuleRoot(dir)
}

// RecordsRoot is the records root dir names in the module at root: .rook/runs there when
// dir is "", dir itself when it is absolute, else dir under root.
func RecordsRoot(root, dir string) string {
	switch {
	case dir == "":
		return filepath.Join(root, ".rook", "runs")
	case filepath.IsAbs(dir):
		return dir
	}
	return filepath.Join(root, dir)
}

// RelErr shows the paths in err relative to root, as users name their files.
func RelErr(root string, err error) error {
	return errors.New(strings.ReplaceAll(err.Error(), root+string(filepath.Separator), ""))
}

// GeneratorCommand is the command that runs rookgen in the module at root, as its user
// would type it: go tool rookgen when go.mod has the tool line, go run ./rookgen in this
// repository, else go run github.com/rookgo/rookgo/rookgen.
func GeneratorCommand(root string) string {
	const module = "github.com/rookgo/rookgo"
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "go run " + module + "/rookgen"
	}
	f, err := modfile.Parse("go.mod", data, nil) // ParseLax leaves tool lines out
	if err != nil {
		return "go run " + module + "/rookgen"
	}
	for _, t := range f.Tool {
		if t.Path == module+"/rookgen" {
			return "go tool rookgen"
		}
	}
	if f.Module != nil && f.Module.Mod.Path == module {
		return "go run ./rookgen"
	}
	return "go run " + module + "/rookgen"
}

// GeneratedFile is the test file rookgen generates for profile id of agent, relative to
// the module root: <profile>_rook_test.go, with '-' written '_'. The fixed last element
// keeps a profile id such as eu-arm64 or prod-windows from reading as a GOOS or GOARCH
// build constraint.
func GeneratedFile(agent, profileID string) string {
	return path.Join("scenarios", agent, strings.ReplaceAll(profileID, "-", "_")+"_rook_test.go")
}
