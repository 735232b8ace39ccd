package modeljudge

// Calibration: how far a model judge agrees with people.
//
// People label judged rows in labels/<agent>.yaml, committed with the suite: which run,
// scenario, attempt and criterion, and the status they would give. Each label is paired
// with the judge's row in the records; the pairs give, per criterion and overall, the
// agreement, Cohen's kappa, the confusion matrix, and the lowest judge confidence at which
// the judge reaches a target agreement. A run may then refuse the verdicts of criteria
// whose judge agrees with people too rarely (-rook.min-agreement).

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/record"
	"github.com/rookgo/rookgo/internal/store"
)

// Label is one person's status for one judged row.
type Label struct {
	Run       string        `yaml:"run"`
	Scenario  string        `yaml:"scenario"`
	Attempt   int           `yaml:"attempt"`
	Criterion string        `yaml:"criterion"`
	Status    record.Status `yaml:"status"`
	// By and Note are the labeller's, kept for people.
	By   string `yaml:"by,omitempty"`
	Note string `yaml:"note,omitempty"`

	line int
}

// Key names the criterion a label is about, as calibration groups them: scenario/criterion.
func (l Label) Key() string { return l.Scenario + "/" + l.Criterion }

// LabelsPath is where an agent's labels live in the module at root.
func LabelsPath(root, agent string) string { return filepath.Join(root, "labels", agent+".yaml") }

// LoadLabels reads a labels file; a bad entry is an error naming the file, its line and
// its key. A file that does not exist holds no labels.
func LoadLabels(path string) ([]Label, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read labels: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: want a list of labels ({run, scenario, attempt, criterion, status})", path, list.Line)
	}
	var out []Label
	var errs []error
	for _, n := range list.Content {
		l, err := decodeLabel(n)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", path, n.Line, err))
			continue
		}
		out = append(out, l)
	}
	return out, errors.Join(errs...)
}

func decodeLabel(n *yaml.Node) (Label, error) {
	var l Label
	if n.Kind != yaml.MappingNode {
		return l, errors.New("a label is a mapping: {run, scenario, attempt, criterion, status}")
	}
	known := map[string]bool{"run": true, "scenario": true, "attempt": true, "criterion": true, "status": true, "by": true, "note": true}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !known[k] {
			return l, fmt.Errorf("unknown key %q (want run, scenario, attempt, criterion, status, by, note)", k)
		}
	}
	if err := n.Decode(&l); err != nil {
		return l, err
	}
	l.line = n.Line
	if l.Attempt == 0 {
		l.Attempt = 1
	}
	for key, v := range map[string]string{"run": l.Run, "scenario": l.Scenario, "criterion": l.Criterion} {
		if !record.ValidID(v) {
			return l, fmt.Errorf("key %s: %q is not an id (letters, digits, '-', '_', '.'; no separators)", key, v)
		}
	}
	switch l.Status {
	case record.Pass, record.Fail, record.UnableToVerify:
	default:
		return l, fmt.Errorf("key status: %q is not Pass, Fail or Unable to Verify", l.Status)
	}
	if l.Attempt < 1 {
		return l, fmt.Errorf("key attempt: %d is not an attempt (1 or more)", l.Attempt)
	}
	return l, nil
}

// LabelPair is a person's status beside the judge's, for one row.
type LabelPair struct {
	Key        string // scenario/criterion
	Judge      record.Status
	Confidence string // the judge's
	Person     record.Status
}

// PairLabels finds each label's row in the agent's records under root (the records root). A
// label whose row is not there, or was not decided by a model judge, is an error naming
// the label's line; the others are paired.
func PairLabels(root, agent, labelsPath string, labels []Label) ([]LabelPair, error) {
	var out []LabelPair
	var errs []error
	for _, l := range labels {
		dir := filepath.Join(root, agent, l.Run, "scenarios", l.Scenario)
		if _, err := os.Stat(filepath.Join(dir, "attempts")); err == nil {
			dir = filepath.Join(dir, "attempts", strconv.Itoa(l.Attempt))
		} else if l.Attempt != 1 {
			errs = append(errs, fmt.Errorf("%s:%d: %s of run %s has no attempt %d", labelsPath, l.line, l.Scenario, l.Run, l.Attempt))
			continue
		}
		v, err := store.ReadVerdict(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", labelsPath, l.line, err))
			continue
		}
		found := false
		for _, row := range v.Criteria {
			if row.CriterionID != l.Criterion {
				continue
			}
			found = true
			if row.Judge == "" {
				errs = append(errs, fmt.Errorf("%s:%d: %s %s of run %s was not decided by a model judge", labelsPath, l.line, l.Scenario, l.Criterion, l.Run))
				break
			}
			out = append(out, LabelPair{Key: l.Key(), Judge: row.Status, Confidence: row.Confidence, Person: l.Status})
		}
		if !found {
			errs = append(errs, fmt.Errorf("%s:%d: run %s has no criterion %s in %s", labelsPath, l.line, l.Run, l.Criterion, l.Scenario))
		}
	}
	return out, errors.Join(errs...)
}
