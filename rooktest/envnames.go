package rooktest

import (
	"flag"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rookgo/rookgo/internal/hook"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/internal/supervisor"
)

// judgeVars are the ROOK_* settings of the model judge (judge.go).
var judgeVars = []string{"ROOK_JUDGE_URL", "ROOK_JUDGE_MODEL", "ROOK_JUDGE_API_KEY", "ROOK_JUDGE_TIMEOUT", "ROOK_JUDGE_RETRIES",
	"ROOK_JUDGE_BUDGET", "ROOK_JUDGE_PREFLIGHT", "ROOK_JUDGE_CACHE", "ROOK_JUDGE_SAMPLES", "ROOK_JUDGE_AUDIT", "ROOK_JUDGE_MODE"}

// knownVars are the ROOKTEST_* and ROOK_* variables something reads: every -rook.* flag's
// twin, the judge's settings, and the hook contract's.
func knownVars() []string {
	var out []string
	flag.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "rook.") {
			out = append(out, envName(f.Name))
		}
	})
	out = append(out, judgeVars...)
	out = append(out, hook.ContractVars()...)
	return append(out, supervisor.Marker)
}

// strayVars names the ROOKTEST_* and ROOK_* variables of env that nothing reads and that
// read like one that is read: ROOKTEST_TAGS for ROOKTEST_TAG runs the whole suite as if it
// were not set.
func strayVars(env []string) []string {
	known := knownVars()
	isKnown := map[string]bool{}
	for _, k := range known {
		isKnown[k] = true
	}
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if isKnown[name] || (!strings.HasPrefix(name, "ROOKTEST_") && !strings.HasPrefix(name, "ROOK_")) || panelKey(name) {
			continue
		}
		var family []string // a ROOKTEST_ name is compared with ROOKTEST_ names, a ROOK_ one with ROOK_ ones
		for _, k := range known {
			if strings.HasPrefix(k, "ROOKTEST_") == strings.HasPrefix(name, "ROOKTEST_") {
				family = append(family, k)
			}
		}
		if near := spec.Nearest(name, family); near != "" {
			out = append(out, fmt.Sprintf("%s is set, but nothing reads it: did you mean %s?", name, near))
		}
	}
	sort.Strings(out)
	return out
}

// panelKey reports whether name is a panel member's key, ROOK_JUDGE_API_KEY_<n> (readPanel).
func panelKey(name string) bool {
	n, ok := strings.CutPrefix(name, "ROOK_JUDGE_API_KEY_")
	_, err := strconv.Atoi(n)
	return ok && err == nil
}
