package scenario_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rookgo/rookgo/internal/check"
	"github.com/rookgo/rookgo/internal/redteam"
	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/schematest"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/schemas"
)

// Rook's own files, byte-exact (internal/spec/testdata/rook-samples/MANIFEST.md).
const samples = "../spec/testdata/rook-samples"

func TestScenarioErrors(t *testing.T) {
	tests := []struct {
		name, file, body string
		want             []string
	}{
		{"unsafe id", "x.yaml", "id: ../x\ngoal: g\n", []string{`x.yaml:1:5: id "../x" may hold only letters`}},
		{"id mismatch", "SC-1.yaml", "local_id: SC-2\ngoal: g\n", []string{`id "SC-2" does not match the file name "SC-1"`}},
		{"misspelt key", "SC-1.yaml", "id: SC-1\ngoal: g\nacceptance_critera: []\n",
			[]string{`SC-1.yaml:3:1: unknown key "acceptance_critera" in scenario; did you mean "acceptance_criteria"?`}},
		{"no goal", "SC-1.yaml", "id: SC-1\n", []string{"missing goal"}},
		{"bad regex", "SC-1.yaml", "id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: regex, params: {pattern: '(('}}\n",
			[]string{"SC-1.yaml:4:52: acceptance_criteria[0].params.pattern is not a valid RE2 expression"}},
		{"missing param", "SC-1.yaml", "id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: called}\n",
			[]string{"check called needs params.name"}},
		{"misspelt check", "SC-1.yaml", "id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contians, params: {text: a}}\n",
			[]string{`unknown check "contians"; did you mean "contains"?`}},
		{"misspelt param", "SC-1.yaml", "id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {txt: a}}\n",
			[]string{`unknown key "txt" in acceptance_criteria[0].params; did you mean "text"?`}},
		{"bad calls expect", "SC-1.yaml", "id: SC-1\ngoal: g\ncalls: [{tool: t, expect: maybe}]\n",
			[]string{"calls[0].expect must be called, not_called or called_with"}},
		// Author mistakes that used to load and pass.
		{"blank forbidden text", "SC-1.yaml", "id: SC-1\ngoal: g\nforbidden: [\"\", \" \", real]\n",
			[]string{"SC-1.yaml:3:13: forbidden[0] is blank", "SC-1.yaml:3:17: forbidden[1] is blank"}},
		{"second document", "SC-1.yaml", "id: SC-1\ngoal: g\n---\nforbidden: [secret]\n",
			[]string{"SC-1.yaml:3:1: a second YAML document (after ---) would be ignored"}},
		{"calls shorthand times with min", "SC-1.yaml", "id: SC-1\ngoal: g\ncalls: [{tool: t, times: 1, min: 1}]\n",
			[]string{"calls[0]: params.times cannot be combined with min or max"}},
		{"calls shorthand not_called with times", "SC-1.yaml", "id: SC-1\ngoal: g\ncalls: [{tool: t, expect: not_called, times: 2}]\n",
			[]string{`unknown key "times" in calls[0]`}},
		{"calls shorthand negative times", "SC-1.yaml", "id: SC-1\ngoal: g\ncalls: [{tool: t, times: -1}]\n",
			[]string{"SC-1.yaml:3:26: times must not be negative"}},
		{"evidence of no tier", "SC-1.yaml", "id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: a, evidence: proven}}\n",
			[]string{`SC-1.yaml:4:65: acceptance_criteria[0].params.evidence must be said, reported, collected, got "proven"`}},
		{"simulated user's turns out of bounds", "SC-1.yaml", "id: SC-1\ngoal: g\nsimulated_user: {persona: p, max_turns: 0}\n",
			[]string{"SC-1.yaml:3:41: simulated_user.max_turns must be from 1 to 50, got 0"}},
		{"simulated user's misspelt key", "SC-1.yaml", "id: SC-1\ngoal: g\nsimulated_user: {persona: p, instruction: i}\n",
			[]string{`SC-1.yaml:3:30: unknown key "instruction" in simulated_user; did you mean "instructions"?`}},
		{"turn past a simulated user's last", "SC-1.yaml", "id: SC-1\ngoal: g\nsimulated_user: {max_turns: 2}\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: a}, turn: 3}\n",
			[]string{"SC-1.yaml:5:5: criterion C1 is about turn 3, and the scenario has 2 turn(s)"}},
		{"turn past the last", "SC-1.yaml", "id: SC-1\ngoal: g\nsetup_messages: [hi]\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: a}, turn: 3}\n",
			[]string{"SC-1.yaml:5:5: criterion C1 is about turn 3, and the scenario has 2 turn(s)"}},
		{"turn of a judge", "SC-1.yaml", "id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, turn: 1}\n",
			[]string{"SC-1.yaml:4:26: acceptance_criteria[0]: turn is for the checks that read turns (text, calls, usage, latency, json_path); llm_judge reads the whole record"}},
		{"turn zero", "SC-1.yaml", "id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: a}, turn: 0}\n",
			[]string{`acceptance_criteria[0].turn must be a turn number from 1, or last; got "0"`}},
		{"turn and turns", "SC-1.yaml", "id: SC-1\ngoal: g\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: a}, turn: 1, turns: all}\n",
			[]string{"acceptance_criteria[0]: give turn (one turn) or turns: all, not both"}},
		{"min_pass above repeat", "SC-1.yaml", "id: SC-1\ngoal: g\nrepeat: 3\nmin_pass: 4\n",
			[]string{"SC-1.yaml:4:11: min_pass 4 is more than repeat 3: at most 3 attempts can pass"}},
		{"min_pass without repeat", "SC-1.yaml", "id: SC-1\ngoal: g\nmin_pass: 2\n",
			[]string{"SC-1.yaml:3:11: min_pass 2 is more than repeat 1"}},
		{"min_pass zero", "SC-1.yaml", "id: SC-1\ngoal: g\nrepeat: 3\nmin_pass: 0\n",
			[]string{"SC-1.yaml:4:11: min_pass must be at least 1, got 0"}},
		{"calls shorthand without a tool", "SC-1.yaml", "id: SC-1\ngoal: g\ncalls: [{expect: called}]\n",
			[]string{"calls[0]: check called needs params.name"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scenario.Parse(tc.file, []byte(tc.body))
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// Rook's verification_requires naming an mcp server makes the scenario's call criteria,
// and only those, require collected evidence; a criterion's own evidence param stands.
func TestVerificationRequiresMCP(t *testing.T) {
	s, err := scenario.Parse("SC-1.yaml", []byte(`id: SC-1
goal: g
verification_requires: [{type: mcp, server: billing, op: issue_refund}]
acceptance_criteria:
  - {statement: s, check: called, params: {name: issue_refund}}
  - {statement: s, check: not_called, params: {name: escalate, evidence: reported}}
  - {statement: s, check: contains, params: {text: done}}
calls: [{tool: transfer, expect: not_called}]
`))
	require.NoError(t, err)
	var got []string
	for _, c := range s.Criteria {
		got = append(got, c.ID+"="+c.Requires)
	}
	assert.Equal(t, []string{"C1=collected", "C2=reported", "C3=", "CALL-01=collected"}, got)
}

// Rook's red-team scenarios load, and each of their signals is read by a rule (and, for
// one about a criterion, names a criterion of its scenario) or is left to the judge: one
// line each in the test's log.
func TestRookRedteamSignalsAreReadOrLeftToTheJudge(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(samples, "*/.testmuai/rook/projects/*/agents/*/scenarios/*.yaml"))
	require.NoError(t, err)
	drafts, err := filepath.Glob(filepath.Join(samples, "*/rook/generated-drafts/*.yaml"))
	require.NoError(t, err)
	kinds := map[string]int{}
	for _, f := range append(files, drafts...) {
		s, err := scenario.Load(f)
		require.NoError(t, err)
		if s.Redteam == nil {
			continue
		}
		assert.True(t, s.Adversarial(), f)
		for side, list := range map[string][]redteam.Signal{"success": s.Redteam.Success, "failure": s.Redteam.Failure} {
			for _, sig := range list {
				line := fmt.Sprintf("%s %s %-16s %.70q", s.ID, side, sig.Kind, strings.Join(strings.Fields(sig.Raw), " "))
				if sig.Kind == redteam.Criterion {
					var ids []string
					for _, c := range s.Criteria {
						if sig.Names(c.Statement) {
							ids = append(ids, c.ID)
						}
					}
					assert.Len(t, ids, 1, "%s names one criterion", line)
					line += " -> " + strings.Join(ids, ",")
				}
				t.Log(line)
				kinds[sig.Kind]++
			}
		}
		assert.Empty(t, s.Warnings, f)
	}
	t.Logf("signals by reading: %v", kinds)
	assert.Equal(t, 5, kinds[redteam.Criterion], "Rook's criterion-bound success signals")
	assert.Equal(t, 3, kinds[redteam.AnyCriterion])
	assert.Equal(t, 8, kinds[redteam.EveryCriterion])
	assert.Equal(t, 2, kinds[redteam.Called])
	assert.Equal(t, 1, kinds[redteam.NotCalled])
	assert.Equal(t, 15, kinds[redteam.Judge], "free-text signals are left to the judge")
}

// The schemas refuse what the parser refuses: a misspelt param, a param of the wrong type
// or outside its values, a command given as a string.
func TestSchemasRefuseWhatTheParserRefuses(t *testing.T) {
	scenarioSchema := schematest.Compile(t, "scenario.schema.json", schemas.Scenario)
	profile := schematest.Compile(t, "profile.schema.json", schemas.Profile)
	criterion := func(c string) []byte {
		return []byte("id: SC-1\ngoal: g\nacceptance_criteria:\n  - " + c + "\n")
	}
	for _, bad := range []string{
		"{statement: s, check: contains, params: {txt: hello}}",
		"{statement: s, check: latency, params: {max_ms: fast}}",
		"{statement: s, check: call_sequence, params: {names: [a, b], mode: strictly}}",
		"{statement: s, check: usage, params: {input: 10}}",
		"{statement: s, check: regex, params: {pattern: a, in: collect}}",
	} {
		assert.Error(t, schematest.ValidateYAML(t, scenarioSchema, criterion(bad)), bad)
		_, err := scenario.Parse("SC-1.yaml", criterion(bad))
		assert.Error(t, err, "the parser refuses it too: %s", bad)
	}
	for _, good := range []string{
		"{statement: s, check: contains, params: {text: hello, case_sensitive: true}}",
		"{statement: s, check: latency, params: {max_ms: 5000, per: scenario}}",
		"{statement: s, check: call_sequence, params: {names: [a, b], mode: subset}}",
		"{statement: s, check: usage, params: {total_max: 400}}",
		"{statement: s, check: json_path, params: {in: collect, path: $.x, exists: true}}",
		"{statement: s, check: llm_judge}",
	} {
		assert.NoError(t, schematest.ValidateYAML(t, scenarioSchema, criterion(good)), good)
	}
	bad := []byte("id: p\nhooks:\n  execute: {command: \"my-agent --flag\"}\n")
	assert.Error(t, schematest.ValidateYAML(t, profile, bad))
	_, err := spec.ParseProfile("p.yaml", t.TempDir(), bad)
	assert.Error(t, err)
}

// Every scenario of Rook's samples compiles, and each criterion has a check: the one its
// kind names, or Unsupported for a check this judge does not implement.
func TestRookScenariosCompile(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(samples, "*/.testmuai/rook/projects/*/agents/*/scenarios/*.yaml"))
	require.NoError(t, err)
	drafts, err := filepath.Glob(filepath.Join(samples, "*/rook/generated-drafts/*.yaml"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files)+len(drafts), 20)
	for _, f := range append(files, drafts...) {
		s, err := scenario.Load(f)
		require.NoError(t, err, f)
		require.Len(t, s.Criteria, len(s.Scenario.Criteria), f)
		for i, c := range s.Criteria {
			require.NotNil(t, c.Check, "%s criterion %d", f, i)
			assert.Equal(t, s.Scenario.Criteria[i].ID, c.ID)
			if _, known := check.Lookup(c.Kind); !known {
				assert.IsType(t, &check.Unsupported{}, c.Check, "%s %s", f, c.ID)
			}
		}
	}
}

func TestRookSampleChecks(t *testing.T) {
	draft := func(id string) *scenario.Scenario {
		s, err := scenario.Load(filepath.Join(samples, "01-banking-code/rook/generated-drafts", id+".yaml"))
		require.NoError(t, err)
		return s
	}
	sc1 := draft("SC-001")
	require.IsType(t, &check.Regex{}, sc1.Criteria[1].Check)
	assert.Equal(t, "5,?000", sc1.Criteria[1].Check.(*check.Regex).Pattern.String())
	assert.Equal(t, "C2_regex", sc1.Criteria[1].Subtest())

	// A criterion of the calls shorthand reads as its check's words, and is named by them.
	sc5 := draft("SC-005")
	c := sc5.Criteria[3]
	assert.Equal(t, "CALL-01_called_transfer", c.Subtest())
	assert.Equal(t, "The agent calls transfer exactly 1 time(s).", c.Statement)
	assert.Empty(t, sc5.Scenario.Criteria[3].Statement, "the decoded file is left as written")
	call, ok := c.Check.(*check.Called)
	require.True(t, ok)
	assert.Equal(t, "transfer", call.Name)
	require.NotNil(t, call.Times)
	assert.Equal(t, 1, *call.Times)
	assert.True(t, sc5.Observes().Has(check.ObservesCalls))
}

// A signal's form decides how it is read: a {text:} mapping is free text even when it
// reads like a regular expression, a {regex:} mapping takes flags, a string is read by its
// shape; a bad expression is refused at its line and column.
func TestSignalsAreReadByTheirForm(t *testing.T) {
	s, err := scenario.Parse("SC-1.yaml", []byte(`id: SC-1
goal: g
redteam:
  success_signals:
    - {text: "/not a regex/"}
    - {regex: "SECRET-\\d+", flags: i}
    - The refund tool is invoked
    - the agent seems to comply
  failure_signals: ["/refus(e|al)/i"]
`))
	require.NoError(t, err)
	var got []string
	for _, sig := range append(s.Redteam.Success, s.Redteam.Failure...) {
		got = append(got, sig.Kind+" "+sig.Raw)
	}
	assert.Equal(t, []string{"text /not a regex/", `regex /SECRET-\d+/i`, "called The refund tool is invoked",
		"judge the agent seems to comply", "regex /refus(e|al)/i"}, got)
	succ, fail := s.Redteam.JudgeSignals()
	assert.Len(t, succ, 1)
	assert.Empty(t, fail)
	assert.True(t, s.Observes().Has(check.ObservesModel), "a free-text signal needs a judge model")

	_, err = scenario.Parse("SC-1.yaml", []byte("id: SC-1\ngoal: g\nredteam:\n  failure_signals:\n    - {regex: \"((\"}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SC-1.yaml:5:7: failure_signals: signal /((/ is not a valid regular expression")
}

// Compile builds from the decoded file without changing it, so that one decoded file can
// be compiled again, or shown as written.
func TestCompileLeavesTheFileAlone(t *testing.T) {
	sp, err := spec.ParseScenario("SC-1.yaml", []byte(`id: SC-1
goal: g
acceptance_criteria:
  - {statement: "criterion: refund issued", check: contains, params: {text: refunded}}
calls: [{tool: refund}]
redteam:
  success_signals: ["Observed violation of an acceptance criterion: nothing of the kind"]
`))
	require.NoError(t, err)
	before := fmt.Sprint(sp.Criteria, sp.Warnings)
	a, err := scenario.Compile(sp)
	require.NoError(t, err)
	b, err := scenario.Compile(sp)
	require.NoError(t, err)
	assert.Equal(t, before, fmt.Sprint(sp.Criteria, sp.Warnings))
	assert.Equal(t, a.Warnings, b.Warnings)
	require.Len(t, a.Warnings, 1)
	assert.Contains(t, a.Warnings[0], `redteam signal "Observed violation of an acceptance criterion: nothing of the kind" names no criterion`)
	assert.Equal(t, "The agent calls refund.", a.Criteria[1].Statement)
}

// The decoding package names no check, signal reading or rate: a new check touches the
// check package and its schema alone.
func TestSpecImportsNoCheck(t *testing.T) {
	files, err := filepath.Glob("../spec/*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, banned := range []string{"/internal/check", "/internal/redteam", "/internal/ratelimit", "/internal/scenario"} {
				assert.False(t, strings.HasSuffix(path, banned), "%s imports %s", f, path)
			}
		}
	}
}
