package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/record"
)

// QuarantineFile is the name of an agent's quarantine list, under profiles/<agent>/.
const QuarantineFile = "quarantine.yaml"

// Quarantined is one scenario kept running and reported, but out of the exit code, until
// it expires.
type Quarantined struct {
	ScenarioID string
	Reason     string
	// Expires is the last day the entry holds: from the day after, it is an error.
	Expires time.Time
	Line    int
}

// Says is the entry as a test and a report say it: "quarantined until 2027-01-15: the
// sandbox's refunds API is down (AG-123)".
func (q Quarantined) Says() string {
	return fmt.Sprintf("quarantined until %s: %s", q.Expires.Format(time.DateOnly), q.Reason)
}

// Epoch is a date before any entry's expiry: LoadQuarantine at Epoch reads a list without
// refusing expired entries, for a reader that only asks what it names.
var Epoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// Quarantine is an agent's quarantine list, by scenario id.
type Quarantine map[string]Quarantined

var quarantineKeys = []string{"scenario", "reason", "expires"}

// LoadQuarantine reads profiles/<agent>/quarantine.yaml in agentDir; an agent without one
// has an empty list. today is the date entries expire against: an entry whose expires is
// before today is an error naming its line, as is an entry without a reason, a date,
// or a scenario of ids (nil for any).
//
//	quarantine:
//	  - scenario: SC-7
//	    reason: the sandbox's refunds API is down (AG-123)
//	    expires: 2027-01-15
func LoadQuarantine(agentDir string, today time.Time, ids map[string]bool) (Quarantine, error) {
	file := filepath.Join(agentDir, QuarantineFile)
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return Quarantine{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read quarantine: %w", err)
	}
	e := &errs{file: file}
	q := Quarantine{}
	root := parseDoc(e, data)
	if root == nil {
		return nil, e.err()
	}
	for _, f := range fields(e, root, "the quarantine file", []string{"quarantine"}, true) {
		if f.v.Kind != yaml.SequenceNode {
			e.at(f.v, "quarantine must be a list of {scenario, reason, expires}, not %s", kindName(f.v))
			continue
		}
		for _, item := range f.v.Content {
			quarantineEntry(e, item, q, today, ids)
		}
	}
	if err := e.err(); err != nil {
		return nil, err
	}
	return q, nil
}

func quarantineEntry(e *errs, item *yaml.Node, q Quarantine, today time.Time, ids map[string]bool) {
	entry := Quarantined{Line: item.Line}
	var expires *yaml.Node
	for _, f := range fields(e, item, "a quarantine entry", quarantineKeys, true) {
		switch f.key {
		case "scenario":
			entry.ScenarioID = str(e, f)
		case "reason":
			entry.Reason = str(e, f)
		case "expires":
			expires = f.v
			d, err := time.Parse(time.DateOnly, f.v.Value)
			if f.v.Kind != yaml.ScalarNode || err != nil {
				e.at(f.v, "expires must be a date, YYYY-MM-DD, got %q", f.v.Value)
				continue
			}
			entry.Expires = d
		}
	}
	if item.Kind != yaml.MappingNode {
		return // said by fields
	}
	switch {
	case entry.ScenarioID == "":
		e.at(item, "a quarantine entry needs scenario: the id of the scenario it keeps out of the exit code")
	case !record.ValidID(entry.ScenarioID) || (ids != nil && !ids[entry.ScenarioID]):
		e.at(item, "quarantine names scenario %q, which the agent does not have", entry.ScenarioID)
	case q[entry.ScenarioID].Line != 0:
		e.at(item, "scenario %s is quarantined twice (first on line %d)", entry.ScenarioID, q[entry.ScenarioID].Line)
	}
	if entry.Reason == "" {
		e.at(item, "the quarantine of %s needs a reason: why it is out of the exit code, and who is fixing it", entry.ScenarioID)
	}
	switch {
	case expires == nil:
		e.at(item, "the quarantine of %s needs expires: the date it must be fixed by (YYYY-MM-DD)", entry.ScenarioID)
	case !entry.Expires.IsZero() && dateOf(today).After(entry.Expires):
		e.at(expires, "the quarantine of %s expired after %s (%s): fix the scenario or the agent and remove the entry, or set a later date",
			entry.ScenarioID, entry.Expires.Format(time.DateOnly), entry.Reason)
	}
	if entry.ScenarioID != "" && q[entry.ScenarioID].Line == 0 {
		q[entry.ScenarioID] = entry
	}
}

// dateOf is t's calendar day, in UTC, as time.Parse reads a date.
func dateOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// ProfileFiles are the profile files of the agent whose folder is agentDir
// (profiles/<agent>/*.yaml), sorted: every YAML file there but the quarantine list.
func ProfileFiles(agentDir string) []string {
	files, _ := filepath.Glob(filepath.Join(agentDir, "*.yaml")) // the pattern is well formed
	out := files[:0]
	for _, f := range files {
		if filepath.Base(f) != QuarantineFile {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}
