package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rookgo/rookgo/internal/record"
)

// Every way of selecting and running a suite gives one answer: the exit code, gotestsum's
// JUnit, rookgen junit's, report.yaml and the markdown summary agree, row by row, and the
// exit code is the one the rule gives (decide's counting.go). The suite is built once; each
// row runs the binary as go test -json runs it.
func TestOutcomesAgreeEverywhere(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs a generated package")
	}
	dir := newModule(t)
	fakeProfile(t, dir, map[string]string{"SC-4": "exit:3:the agent's API is down", "SC-5": `first:{"output": "no"} || {"output": "hello"}`, "SC-6": "reply:no"},
		"SC-6")
	write(t, dir, "scenarios/fake/SC-1.yaml", "id: SC-1\ngoal: hello\ntags: [smoke]\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n")
	write(t, dir, "scenarios/fake/SC-2.yaml", "id: SC-2\ngoal: hello\ntags: [smoke]\nacceptance_criteria:\n  - {id: C1, statement: s, check: contains, params: {text: nope}}\n  - {id: C2, statement: s, check: contains, params: {text: hello}}\n")
	write(t, dir, "scenarios/fake/SC-3.yaml", "id: SC-3\ngoal: hello\nacceptance_criteria:\n  - {statement: s, check: called, params: {name: lookup}}\n")
	helloScenario(t, dir, "SC-4")
	write(t, dir, "scenarios/fake/SC-5.yaml", "id: SC-5\ngoal: hello\nrepeat: 3\nmin_pass: 1\nacceptance_criteria:\n  - {statement: s, check: contains, params: {text: hello}}\n")
	helloScenario(t, dir, "SC-6")
	rookgen(t, dir)
	bin := testBinary(t, dir, "fake")

	const pass, fail, either = 0, 1, -1
	for i, row := range []struct {
		args []string
		want int
	}{
		{nil, fail},
		{[]string{"-test.run", "TestFake/SC-1"}, pass},
		{[]string{"-test.run", "TestFake/SC-2/C2"}, fail},
		{[]string{"-test.run", "TestFake/SC-2", "-test.skip", "TestFake/SC-2/C1"}, fail},
		{[]string{"-test.skip", "TestFake/SC-2"}, fail},
		{[]string{"-test.run", "TestFake/(SC-1|SC-3)"}, pass},
		{[]string{"-test.run", "TestFake/(SC-1|SC-3)", "-rook.strict"}, fail},
		{[]string{"-rook.only=SC-1"}, pass},
		{[]string{"-rook.only=SC-3"}, fail},
		{[]string{"-rook.tag=smoke"}, fail},
		{[]string{"-rook.only=SC-5"}, pass},
		{[]string{"-rook.only=SC-6"}, pass},
		{[]string{"-rook.only=SC-4,SC-6"}, fail},
		{[]string{"-rook.only=SC-1,SC-6", "-rook.gate=on"}, pass},
		{[]string{"-rook.only=SC-1,SC-2", "-rook.gate=on"}, fail},
		{[]string{"-rook.shard=1/2"}, either},
		{[]string{"-rook.shard=2/2"}, either},
		{[]string{"-test.failfast"}, fail},
		{[]string{"-test.count=2", "-test.run", "TestFake/SC-1"}, pass},
		{[]string{"-test.run", "TestFake/SC-5/attempt_1"}, pass},
		{[]string{"-test.run", "TestFake/SC-6"}, pass},
		{[]string{"-test.run", "TestFake/SC-2", "-rook.strict"}, fail},
		{[]string{"-rook.only=SC-1,SC-3", "-rook.shard=1/2"}, either},
	} {
		t.Run(strconv.Itoa(i+1)+"_"+strings.Join(row.args, "_"), func(t *testing.T) {
			records := t.TempDir()
			res, err := runBinary(t, bin, dir, "fake", nil, append(row.args, "-rook.dir="+records)...)
			exit := 0
			if err != nil {
				exit = 1
			}
			if row.want != either {
				require.Equal(t, row.want, exit, "exit code\n%s", res.all)
			}
			stream := filepath.Join(t.TempDir(), "events.json")
			require.NoError(t, os.WriteFile(stream, []byte(res.json), 0o644))

			// gotestsum reads the same stream and writes its JUnit.
			gotestsum := filepath.Join(t.TempDir(), "gotestsum.xml")
			cmd := exec.Command("go", "tool", "gotestsum", "--junitfile", gotestsum, "--raw-command", "--", "cat", stream)
			cmd.Dir = ".."
			out, gerr := cmd.CombinedOutput()
			require.NoError(t, gerr, "%s", out)
			ours := filepath.Join(t.TempDir(), "rookgen.xml")
			var stdout, stderr bytes.Buffer
			code := run([]string{"junit", "-o", ours, stream}, &stdout, &stderr)
			assert.Equal(t, exit, code, "rookgen junit exits as the run did: %s", stderr.String())
			for _, path := range []string{gotestsum, ours} {
				failures := junitFailures(t, path)
				assert.Equal(t, exit == 1, failures > 0, "%s: %d failing testcase(s), exit %d\n%s", filepath.Base(path), failures, exit, res.all)
			}

			// Each run's report.yaml: what it counts toward the exit code agrees with it.
			runs, _ := filepath.Glob(filepath.Join(records, "fake", "*", "report.yaml"))
			counted := 0
			for _, path := range runs {
				b, err := os.ReadFile(path)
				require.NoError(t, err)
				var rep record.Report
				require.NoError(t, yaml.Unmarshal(b, &rep))
				tt := rep.Totals
				counted += tt.Failed - tt.Excused
				if hasArg(row.args, "-rook.strict") {
					counted += tt.Unverifiable + tt.Unrunnable
				}
				if tt.Decided == 0 && tt.Planned > 0 && !sharded(row.args) {
					counted++ // a run that decided nothing fails
				}
				// The markdown summary counts as report.yaml does.
				var md, merr bytes.Buffer
				require.Equal(t, 0, run([]string{"report", "-dir", records, "-run", rep.RunID, "-format", "md"}, &md, &merr), merr.String())
				assert.Contains(t, md.String(), fmt.Sprintf("| %d | %d | %d | %d | %d | %d |", tt.Planned, tt.Passed, tt.Failed, tt.Unverifiable, tt.Unrunnable, tt.NotRun))
				if n := tt.Failed - tt.Excused; n > 0 {
					assert.Regexp(t, regexp.MustCompile(fmt.Sprintf(`\*\*.*\b%d failed\b`, tt.Failed)), md.String())
				}
			}
			if !sharded(row.args) || exit == 1 {
				assert.Equal(t, exit == 1, counted > 0, "report.yaml counts %d outcome(s) toward the exit code, which is %d\n%s", counted, exit, res.all)
			}
		})
	}
}

func hasArg(args []string, flag string) bool {
	for _, a := range args {
		if a == flag {
			return true
		}
	}
	return false
}

func sharded(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "-rook.shard=") {
			return true
		}
	}
	return false
}

// junitFailures counts the failing testcases of a JUnit file.
func junitFailures(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var j struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &j), "%s", data)
	n := 0
	for _, s := range j.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil {
				n++
			}
		}
	}
	return n
}
