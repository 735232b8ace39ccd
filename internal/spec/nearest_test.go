package spec

import "testing"

// A typo is named with the key it reads like: two letters swapped count as one edit, and
// of two keys as near the one a swap explains is named.
func TestNearest(t *testing.T) {
	known := []string{"ROOK_JUDGE_MODE", "ROOK_JUDGE_MODEL", "ROOK_JUDGE_URL", "acceptance_criteria", "forbidden_text"}
	for typo, want := range map[string]string{
		"ROOK_JUDGE_MODLE":    "ROOK_JUDGE_MODEL", // swapped: one edit, where MODE is one letter dropped
		"ROOK_JUDGE_MOD":      "ROOK_JUDGE_MODE",
		"ROOK_JUDGE_MDOE":     "ROOK_JUDGE_MODE",
		"ROOK_JUDGE_ULR":      "ROOK_JUDGE_URL",
		"acceptance_critiera": "acceptance_criteria",
		"forbiden_txet":       "forbidden_text",
		"timeout":             "",
	} {
		if got := Nearest(typo, known); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", typo, got, want)
		}
	}
	for _, c := range []struct {
		a, b string
		d    int
	}{{"abcd", "abdc", 1}, {"abcd", "abcd", 0}, {"", "ab", 2}, {"ca", "abc", 3}, {"kitten", "sitting", 3}} {
		if got := levenshtein(c.a, c.b); got != c.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}
