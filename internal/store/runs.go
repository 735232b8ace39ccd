package store

import (
	"path/filepath"
	"sort"
	"time"
)

// RunDir is one run folder under a records root.
type RunDir struct {
	Dir, Agent, ID string
	// ProfileID is the profile the run pins.
	ProfileID string
	// Created is when the run started.
	Created time.Time
}

// ListRuns lists the runs under records root, of agent when it is not "", newest first
// (by creation, then id: an id given with -rook.run-id need not be a time). A folder whose run.yaml does not read is not a whole run and is
// left out.
func ListRuns(root, agent string) []RunDir {
	if agent == "" {
		agent = "*"
	}
	files, _ := filepath.Glob(filepath.Join(root, agent, "*", "run.yaml")) // the pattern is well formed
	var runs []RunDir
	for _, f := range files {
		dir := filepath.Dir(f)
		r, err := (Store{Dir: dir}).Run()
		if err != nil {
			continue
		}
		runs = append(runs, RunDir{Dir: dir, Agent: filepath.Base(filepath.Dir(dir)), ID: filepath.Base(dir), ProfileID: r.Pins.ProfileID, Created: r.Created})
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Newer(runs[j]) })
	return runs
}

// Newer reports whether run r started after o (the later id first when both started in
// the same instant).
func (r RunDir) Newer(o RunDir) bool {
	if !r.Created.Equal(o.Created) {
		return r.Created.After(o.Created)
	}
	return r.ID > o.ID
}
