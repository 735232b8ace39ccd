package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CopyTree copies the folder src to dst: folders, and regular files (0644 at most: a file
// that others could not read stays so); a symlink, FIFO or device a hook left in a state
// folder is not copied, and a src that is a link is refused. dst may not be src or inside
// it. skip, when not nil, leaves out
// the entries it names (by path relative to src, slash-separated), a folder with all it
// holds. The files are not synced one by one: callers copy into a temporary folder and
// rename it into place, so that a copy is whole or absent.
func CopyTree(src, dst string, skip func(rel string) bool) error {
	if info, err := os.Lstat(src); err != nil || !info.IsDir() {
		if err == nil {
			err = errors.New("not a folder (a link is not followed)")
		}
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if within(dst, src) {
		return fmt.Errorf("copy %s: into itself (%s)", src, dst)
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("copy %s: %w", src, err)
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return fmt.Errorf("copy %s: %w", src, err)
		}
		if rel != "." && skip != nil && skip(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if err := os.MkdirAll(target, 0o755); err != nil {
				return fmt.Errorf("copy %s: %w", src, err)
			}
			return nil
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return fmt.Errorf("copy %s: %w", src, err)
			}
			return copyFile(path, target, info.Mode().Perm()&0o644)
		}
		return nil
	})
}

// within reports whether path is dir or inside it, their links resolved as far as they
// exist.
func within(path, dir string) bool {
	resolve := func(p string) string {
		abs, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		for q, rest := abs, ""; ; {
			if r, err := filepath.EvalSymlinks(q); err == nil {
				return filepath.Join(r, rest)
			}
			parent := filepath.Dir(q)
			if parent == q {
				return abs
			}
			rest, q = filepath.Join(filepath.Base(q), rest), parent
		}
	}
	rel, err := filepath.Rel(resolve(dir), resolve(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer func() { _ = in.Close() }() // read only
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return nil
}
