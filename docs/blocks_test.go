package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rookgo/rookgo/internal/scenario"
	"github.com/rookgo/rookgo/internal/schematest"
	"github.com/rookgo/rookgo/internal/spec"
	"github.com/rookgo/rookgo/schemas"
)

// TestEveryBlockIsRunOrMarked: each block of the pages is run, read by the parser, given
// to a script, or marked as an illustration; it lists how many of each.
func TestEveryBlockIsRunOrMarked(t *testing.T) {
	tests := testFuncs(t)
	counts := map[string]int{}
	for _, b := range allBlocks(t) {
		kind, arg, _ := strings.Cut(b.marker, " ")
		switch {
		case b.marker == "":
			t.Errorf("%s: this %q block is neither run by a test nor marked as an illustration: put <!-- docs: illustration (why) --> or how it is run on the line before it", b, b.lang)
			continue
		case kind == "illustration":
		case kind == "run":
			name := strings.TrimPrefix(arg, "by ")
			if !tests[name] {
				t.Errorf("%s: the block is marked as run by %s, and no test of the repository has that name", b, name)
			}
		case kind == "scenario":
			checkScenario(t, b, b.text)
		case kind == "profile":
			checkProfile(t, b, b.text)
		case kind == "profile-part":
			checkProfile(t, b, "id: p\nhooks: {execute: hook.mjs}\n"+b.text)
		case kind == "criteria":
			checkScenario(t, b, "id: SC-1\ngoal: g\nsetup_messages: [one, two]\n"+b.text)
		case strings.HasSuffix(kind, ".txtar"):
			checkScriptBlock(t, b, kind, arg)
		default:
			t.Errorf("%s: unknown marker %q", b, b.marker)
			continue
		}
		counts[kind]++
	}
	total, shown := 0, counts["illustration"]
	for _, n := range counts {
		total += n
	}
	parsed := counts["scenario"] + counts["profile"] + counts["profile-part"] + counts["criteria"]
	t.Logf("%d blocks: %d run or read by a test (%d by a named test, %d scenarios, profiles and their parts parsed, %d given to a script), %d marked illustration",
		total, total-shown, counts["run"], parsed, total-shown-counts["run"]-parsed, shown)
}

var testFunc = regexp.MustCompile(`(?m)^func (Test\w+)\(`)

// testFuncs are the names of the repository's test functions.
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (strings.HasPrefix(d.Name(), ".") && path != repo || d.Name() == "testdata" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case !strings.HasSuffix(path, "_test.go"):
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(data), -1) {
			out[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var idLine = regexp.MustCompile(`(?m)^(?:id|local_id):\s*(\S+)`)

// checkScenario reads a scenario block as rookgen does, and validates it with the schema.
func checkScenario(t *testing.T, b block, text string) {
	t.Helper()
	id := "SC-1"
	if m := idLine.FindStringSubmatch(text); m != nil {
		id = m[1]
	}
	if _, err := scenario.Parse(id+".yaml", []byte(text)); err != nil {
		t.Errorf("%s: the scenario does not load: %v", b, err)
	}
	if err := schematest.ValidateYAML(t, schematest.Compile(t, "scenario.schema.json", schemas.Scenario), []byte(text)); err != nil {
		t.Errorf("%s: the scenario fails its schema: %v", b, err)
	}
}

// recordedDir is the folder of recorded traces a profile's hooks name.
var recordedDir = regexp.MustCompile(`(?m)^ {2,}(?:traces|dir): ([\w./-]+)\s*$`)

var scriptPath = regexp.MustCompile(`[\w./-]+\.(?:mjs|js|py|sh|ts)\b`)

// checkProfile reads a profile block as rookgen does (with the scripts and folders it names present),
// and validates it with the schema.
func checkProfile(t *testing.T, b block, text string) {
	t.Helper()
	dir := t.TempDir()
	for _, p := range scriptPath.FindAllString(text, -1) {
		f := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range recordedDir.FindAllStringSubmatch(text, -1) { // hooks: {traces: DIR}
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(m[1])), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	id := "p"
	if m := idLine.FindStringSubmatch(text); m != nil {
		id = m[1]
	}
	if _, err := spec.ParseProfile(filepath.Join(dir, id+".yaml"), dir, []byte(text)); err != nil {
		t.Errorf("%s: the profile does not load: %v", b, err)
	}
	if err := schematest.ValidateYAML(t, schematest.Compile(t, "profile.schema.json", schemas.Profile), []byte(text)); err != nil {
		t.Errorf("%s: the profile fails its schema: %v", b, err)
	}
}

// checkScriptBlock holds a block to the script that runs it: a file block must be one the
// script uses; each command line of a shell block must be one the script executes.
func checkScriptBlock(t *testing.T, b block, script, file string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(script)))
	if err != nil {
		t.Errorf("%s: %v", b, err)
		return
	}
	text := string(data)
	if file != "" {
		if !strings.Contains(text, " "+file) {
			t.Errorf("%s: the block is given to %s as %s, and the script never reads it", b, script, file)
		}
		return
	}
	var execs []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "! ")
		rest, ok := strings.CutPrefix(line, "exec ")
		if !ok {
			continue
		}
		// A line with shell syntax (a pipe, set -o) runs through a shell, quoted whole.
		for _, sh := range []string{"bash -c '", "sh -c '"} {
			if inner, ok := strings.CutPrefix(rest, sh); ok && strings.HasSuffix(inner, "'") {
				rest = strings.TrimSuffix(inner, "'")
			}
		}
		execs = append(execs, rest)
	}
	for _, c := range commandLines(b.text) {
		if !slices.Contains(execs, c) {
			t.Errorf("%s: %s does not run %q as the page writes it", b, script, c)
		}
	}
}
