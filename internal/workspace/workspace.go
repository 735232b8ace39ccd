// Package workspace finds the module a run or a generation works in.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Root returns the directory of the go.mod at or above dir, and the module path it declares
// (the directory's name when it declares none).
func Root(dir string) (root, module string, err error) {
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(rest), `"`), nil
				}
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
func RootOfWorkingDir() (root, module string, err error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", "", fmt.Errorf("find module root: %w", err)
	}
	return Root(dir)
}

// Rel shows the paths in err relative to root, as users name their files.
func Rel(root string, err error) error {
	return errors.New(strings.ReplaceAll(err.Error(), root+string(filepath.Separator), ""))
}
