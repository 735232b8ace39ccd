package store

import (
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// SnapshotHead is what reports read of a scenario's snapshot.yaml: its title and how it is
// filed.
type SnapshotHead struct {
	Title    string   `yaml:"title"`
	Class    string   `yaml:"class"`
	Category string   `yaml:"category"`
	Feature  string   `yaml:"feature_id"`
	Tags     []string `yaml:"tags"`
}

// ReadSnapshot reads the snapshot.yaml in a scenario's folder: its bytes, and its head,
// which is zero when its YAML does not read (a title is a nicety; the bytes are the
// record).
func ReadSnapshot(dir string) ([]byte, SnapshotHead, error) {
	var head SnapshotHead
	data, err := ReadRecord(filepath.Join(dir, "snapshot.yaml"))
	if err != nil {
		return nil, head, err
	}
	if yaml.Unmarshal(data, &head) != nil {
		head = SnapshotHead{}
	}
	return data, head, nil
}
