package lifecycle

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// unplanted checks, after open, that each of the profile's canary fixtures holds the
// attempt's canary, and names those that do not: a canary that was never planted cannot
// be missed.
func (a *attemptRun) unplanted() string {
	var missing []string
	for _, fx := range a.r.cfg.Profile.CanaryFixtures {
		path := filepath.Join(a.stateDir(), fx)
		b, _, err := readEvidenceFile(path)
		switch {
		case err != nil:
			missing = append(missing, fmt.Sprintf("%s (%v)", fx, err))
		case !bytes.Contains(b, []byte(a.hooks.Canary)):
			missing = append(missing, fx+" (it does not hold ROOK_CANARY)")
		}
	}
	return strings.Join(missing, ", ")
}
