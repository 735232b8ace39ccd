package record

import (
	"path/filepath"
	"sort"
)

// RunDir is one run folder under a records root.
type RunDir struct {
	Dir, Agent, ID string
	// ProfileID is the profile the run pins.
	ProfileID string
}

// ListRuns lists the runs under records root, of agent when it is not "", newest first
// (run ids are times). A folder whose run.yaml does not read is not a whole run and is
// left out.
func ListRuns(root, agent string) []RunDir {
	if agent == "" {
		agent = "*"
	}
	files, _ := filepath.Glob(filepath.Join(root, agent, "*", "run.yaml")) // the pattern is well formed
	var runs []RunDir
	for _, f := range files {
		var r Run
		if ReadYAML(f, &r) != nil {
			continue
		}
		dir := filepath.Dir(f)
		runs = append(runs, RunDir{Dir: dir, Agent: filepath.Base(filepath.Dir(dir)), ID: filepath.Base(dir), ProfileID: r.Pins.ProfileID})
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].ID > runs[j].ID })
	return runs
}
