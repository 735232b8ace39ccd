// Package schemas holds the JSON Schemas of the two YAML kinds, profiles and scenarios, for
// editors (yaml-language-server reads the $schema comment rookgen init writes) and for
// anyone who validates the files with another tool. They are kept beside the parser
// (internal/spec) and tested against it: every key it reads is in them, Rook's own sample
// files pass them, and a misspelt key does not.
package schemas

import _ "embed"

// Profile is profile.schema.json.
//
//go:embed profile.schema.json
var Profile []byte

// Scenario is scenario.schema.json.
//
//go:embed scenario.schema.json
var Scenario []byte

// Base is where the schemas are published; a file's first line names one as
// "# yaml-language-server: $schema=" + Base + "profile.schema.json".
const Base = "https://raw.githubusercontent.com/rookgo/rookgo/main/schemas/"
