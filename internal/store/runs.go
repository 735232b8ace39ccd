package store

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"
)

// RunDir is one run folder under a records root.
type RunDir struct {
	Dir, Agent, ID string
	// ProfileID is the profile the run pins.
	ProfileID string
	// Seen is when the run started as the folder says by itself (Seen).
	Seen time.Time
}

// ListRuns lists the runs under records root, of agent when it is not "", newest first
// by Seen (then id). A folder whose run.yaml does not read is not a whole run and is left
// out, and so is an agent or run folder that is a link: records are never reached through
// one.
func ListRuns(root, agent string) []RunDir {
	if agent == "" {
		agent = "*"
	}
	files, _ := filepath.Glob(filepath.Join(root, agent, "*", "run.yaml")) // the pattern is well formed
	var runs []RunDir
	for _, f := range files {
		dir := filepath.Dir(f)
		if isLink(dir) || isLink(filepath.Dir(dir)) {
			continue
		}
		r, err := (Store{Dir: dir}).RunHead()
		if err != nil {
			continue
		}
		runs = append(runs, RunDir{Dir: dir, Agent: filepath.Base(filepath.Dir(dir)), ID: filepath.Base(dir), ProfileID: r.Pins.ProfileID, Seen: Seen(dir)})
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Newer(runs[j]) })
	return runs
}

func isLink(path string) bool {
	info, err := os.Lstat(path)
	return err != nil || info.Mode()&os.ModeSymlink != 0
}

// timeID is a run id made from its start (2006-01-02T15-04-05Z, and -N when taken).
var timeID = regexp.MustCompile(`^(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ)(-\d+)?$`)

// Seen is when the run in dir started, as the folder says by itself: the time in its id
// when it is named by its start, else the folder's own modification time. Never a claim
// inside run.yaml, which a hook could have written: a run claiming 2099 is not the newest.
func Seen(dir string) time.Time {
	if m := timeID.FindStringSubmatch(filepath.Base(dir)); m != nil {
		if t, err := time.Parse("2006-01-02T15-04-05Z", m[1]); err == nil {
			return t
		}
	}
	if info, err := os.Lstat(dir); err == nil {
		return info.ModTime().UTC()
	}
	return time.Time{}
}

// Newer reports whether run r started after o (the later id first when both started in
// the same instant).
func (r RunDir) Newer(o RunDir) bool {
	if !r.Seen.Equal(o.Seen) {
		return r.Seen.After(o.Seen)
	}
	return r.ID > o.ID
}
