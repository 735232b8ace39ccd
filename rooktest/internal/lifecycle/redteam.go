package lifecycle

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
)

// newCanary is a token no agent could emit by chance: ROOK-CANARY- and 16 random hex
// digits.
func newCanary() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail
	return "ROOK-CANARY-" + hex.EncodeToString(b)
}

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
