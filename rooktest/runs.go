package rooktest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/store"
)

// skipTest is a reason for a profile's test to skip rather than fail: the run a flag names
// belongs to another profile or agent of the package.
type skipTest string

func (s skipTest) Error() string { return string(s) }

// resolveRun turns the id a run flag names into a run of this profile: latest is the
// newest one; a run of another profile or agent makes this test skip, saying whose it is;
// an id that names no run anywhere under the records root is an error.
func resolveRun(flagName, id, root, agent, profile string) (string, error) {
	if id == "" {
		return "", nil
	}
	if id == "latest" {
		for _, run := range store.ListRuns(root, agent) {
			if run.ProfileID == profile {
				return run.ID, nil
			}
		}
		return "", fmt.Errorf("%s=latest: profile %s of agent %s has no run under %s yet", flagName, profile, agent, root)
	}
	st, err := store.OpenRun(root, agent, id)
	if err == nil {
		run, err := st.RunHead()
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", flagName, id, err)
		}
		if run.Pins.ProfileID != profile {
			return "", skipTest(fmt.Sprintf("%s=%s is a run of profile %s, not of %s", flagName, id, run.Pins.ProfileID, profile))
		}
		return id, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%s=%s: %w", flagName, id, err)
	}
	if other, _ := filepath.Glob(filepath.Join(root, "*", id, "run.yaml")); len(other) > 0 {
		return "", skipTest(fmt.Sprintf("%s=%s is a run of agent %s, not of %s", flagName, id, filepath.Base(filepath.Dir(filepath.Dir(other[0]))), agent))
	}
	return "", fmt.Errorf("%s=%s: there is no such run under %s", flagName, id, root)
}

// toRerun is what -rook.failed runs again: the scenarios run id planned that did not pass
// (failed, Unable to Verify, not judged or not run).
// planned are all the scenarios that run planned.
func toRerun(root, agent, id string) (rerun, planned map[string]bool, err error) {
	st, err := store.OpenRun(root, agent, id)
	if err != nil {
		return nil, nil, fmt.Errorf("-rook.failed=%s: %w", id, err)
	}
	run, err := st.Run()
	if err != nil {
		return nil, nil, fmt.Errorf("-rook.failed=%s: %w", id, err)
	}
	rerun, planned = map[string]bool{}, map[string]bool{}
	for _, e := range run.Included {
		planned[e.ScenarioID] = true
		v, err := store.ReadVerdict(st.ScenarioDir(e.ScenarioID))
		if err != nil || v.Status != record.Pass {
			rerun[e.ScenarioID] = true
		}
	}
	if len(rerun) == 0 {
		return nil, nil, skipTest(fmt.Sprintf("-rook.failed=%s: every scenario of that run passed; nothing to run again", id))
	}
	return rerun, planned, nil
}

// runIDFor is the folder name of the run -rook.run-id=id names for profile: id itself, or
// id-<profile> when the agent has several profiles, since the runs of one agent share a
// folder and every profile's test starts a run of its own.
func runIDFor(root, agent, profile, id string) string {
	if id == "" {
		return ""
	}
	if profiles := spec.ProfileFiles(filepath.Join(root, "profiles", agent)); len(profiles) > 1 {
		return id + "-" + profile
	}
	return id
}
