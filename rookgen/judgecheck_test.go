package main

import (
	"bytes"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/fakejudge"
	"github.com/rookgo/rookgo/internal/modeljudge"
	"github.com/rookgo/rookgo/internal/record"
)

// rookgen judge-check scores a judge on the kit: a careful judge (scripted to give each
// kit request its known answer, and the controls theirs) passes; one that says Pass to
// everything is named wrong on every Fail, undecidable and contradiction and exits 1.
func TestJudgeCheck(t *testing.T) {
	careful := fakejudge.New(map[string]string{})
	for _, it := range modeljudge.Kit() {
		script := fakejudge.GroundedPass
		for _, want := range it.Want {
			switch want {
			case record.Fail:
				script = fakejudge.GroundedFail
			case record.UnableToVerify:
				script = fakejudge.SamplesPrefix + string(record.UnableToVerify)
			}
		}
		careful.Scripts[it.Case.ScenarioID] = script
	}
	liar := fakejudge.New(nil)                       // a grounded Pass to every real criterion, controls answered right
	every := func(script string) *fakejudge.Server { // the kit's requests; the preflight answered right
		s := fakejudge.New(map[string]string{})
		for _, it := range modeljudge.Kit() {
			s.Scripts[it.Case.ScenarioID] = script
		}
		return s
	}
	for _, tc := range []struct {
		name   string
		server *fakejudge.Server
		code   int
		out    []string
		mode   string
	}{
		{"careful", careful, 0, []string{"pass              3 of 3 right (1.00); controls failed: 0", "all               21 of 21 right (1.00)",
			"cut-number        3 of 3 right", "dropped-negation  7 of 7 right", "control-shaped    2 of 2 right",
			"response_format: the server takes a json_schema", "ok: 1.00"}, ""},
		{"says Pass to everything", liar, 1, []string{"fail              0 of 2 right (0.00)", "undecidable       0 of 2 right (0.00)",
			"contradiction     0 of 2 right (0.00)", "wrong: KIT-CONTRADICTION-1 C1: Pass (want Fail)",
			"cut-number        0 of 3 right (0.00)", "dropped-negation  0 of 7 right (0.00)"}, ""},
		{"cuts numbers", every(fakejudge.CutNumber), 1, []string{"cut-number        0 of 3 right (0.00); controls failed: 0",
			"wrong: KIT-CUT-NUMBER-1 C1: Unable to Verify (want Fail): the quote cuts a word or a number of the record in two"}, ""},
		{"drops negations", every(fakejudge.DropNegation), 1, []string{"dropped-negation  0 of 7 right (0.00); controls failed: 0",
			`wrong: KIT-NEGATION-1 C1: Unable to Verify (want Fail): the quote leaves out what turns it around in its sentence: "issue the refund`}, ""},
		// One that reads words without their negation, controls too, is caught by the
		// negation control in every request where a reply refuses an action.
		{"reads words without negation", every(fakejudge.NegationBlind), 1, []string{"dropped-negation  0 of 7 right (0.00); controls failed: 7",
			`wrong: KIT-NEGATION-3 C1: Unable to Verify (want Fail): the judge failed a control: it answered`}, ""},
		{"reads by shape", every(fakejudge.ShapeOnly), 1, []string{"control-shaped    0 of 2 right (0.00); controls failed: 2",
			"all               3 of 21 right (0.14); controls failed: 19", "undecidable       2 of 2 right (1.00); controls failed: 2"}, ""},
		// Commit-first: a careful judge loses nothing to it; one that believes the replies
		// has each contradiction turned into Unable to Verify, saying what the tool showed.
		{"careful, commit-first", careful, 0, []string{"asked first with the replies withheld", "all               21 of 21 right (1.00); controls failed: 0", "ok: 1.00"}, "commit"},
		{"believes the replies, commit-first", every(fakejudge.ReplySwayed), 1, []string{"contradiction     0 of 2 right (0.00)",
			`wrong: KIT-CONTRADICTION-1 C1: Unable to Verify (want Fail): with the agent's replies withheld the judge answered Fail`}, "commit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.server)
			t.Cleanup(srv.Close)
			var stdout, stderr bytes.Buffer
			args := []string{"judge-check", "-url", srv.URL + "/v1", "-model", "m"}
			if tc.mode != "" {
				args = append(args, "-mode", tc.mode)
			}
			code := run(args, &stdout, &stderr)
			assert.Equal(t, tc.code, code, "%s\n%s", stdout.String(), stderr.String())
			for _, want := range tc.out {
				assert.Contains(t, stdout.String(), want)
			}
			if tc.code != 0 {
				assert.Contains(t, stderr.String(), "below -min 0.80: do not trust it with a suite")
			}
			require.NotEmpty(t, tc.server.Requests("PREFLIGHT"), "the preflight stays")
		})
	}
}
