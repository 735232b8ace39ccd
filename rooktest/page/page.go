// Package page makes a test binary write report.html at the end of every run: one
// self-contained page (no network) of the run, compared with the profile's previous run.
// Without it the run writes report.yaml, and `go tool rookgen report -format html` (or
// rookgen ui) renders the same page from the records. Import it from a hand-written file
// of the test package:
//
//	import _ "github.com/rookgo/rookgo/rooktest/page"
package page

import (
	"github.com/rookgo/rookgo/internal/page"
	"github.com/rookgo/rookgo/rooktest/internal/capability"
)

func init() { capability.Page = page.WriteFile }
