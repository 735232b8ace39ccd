// Package schemas holds the JSON Schemas of the two YAML kinds, profiles and scenarios, for
// editors (yaml-language-server reads the $schema comment rookgen init writes) and for
// anyone who validates the files with another tool. They are kept beside the parser
// (internal/spec) and tested against it: every key it reads is in them, Rook's own sample
// files pass them, and a misspelt key does not.
package schemas

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// Profile is profile.schema.json.
//
//go:embed profile.schema.json
var Profile []byte

// Scenario is scenario.schema.json.
//
//go:embed scenario.schema.json
var Scenario []byte

// Base is where the schemas are published (the schemas' $id).
const Base = "https://raw.githubusercontent.com/rookgo/rookgo/main/schemas/"

// Dir is where rookgen init and rookgen schema write the schemas in a module, relative to
// its root: committed with the suite, so that an editor validates offline, on a private
// fork, and for whoever clones the repository. A file init writes points at them relatively
// ("# yaml-language-server: $schema=../../.rookgo/schemas/profile.schema.json").
const Dir = ".rookgo/schemas"

// Write writes both schemas into dir, creating it.
func Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write the schemas: %w", err)
	}
	for name, data := range map[string][]byte{"profile.schema.json": Profile, "scenario.schema.json": Scenario} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("write the schemas: %w", err)
		}
	}
	return nil
}
