package record

import "regexp"

// idPattern is what an agent, a profile, a scenario or a criterion id may look like, in a
// YAML file or in a record: letters, digits, '-' and '_', starting with a letter or digit.
// No separator and no dot, so an id is always one folder name inside its parent.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// ValidID reports whether id is a valid agent, profile, scenario or criterion id.
func ValidID(id string) bool { return idPattern.MatchString(id) }
