package junit

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type doc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Name     string    `xml:"name,attr"`
		Tests    int       `xml:"tests,attr"`
		Failures int       `xml:"failures,attr"`
		Skipped  int       `xml:"skipped,attr"`
		Cases    []xmlCase `xml:"testcase"`
	} `xml:"testsuite"`
}

// cases are a document's testcases by name, their times left out.
func cases(t *testing.T, data []byte) (doc, map[string]xmlCase) {
	t.Helper()
	var d doc
	require.NoError(t, xml.Unmarshal(data, &d), "%s", data)
	out := map[string]xmlCase{}
	for _, s := range d.Suites {
		for _, c := range s.Cases {
			c.Time, c.XMLName = "", xml.Name{}
			out[c.Name] = c
		}
	}
	return d, out
}

// The report of a real go test -json stream (passes, a failure, a skip, parallel subtests
// with attributes, a failing subtest, output XML must escape) holds the same testcases,
// properties, failure and skip bodies and totals as gotestsum's of the same stream.
func TestSameReportAsGotestsum(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test and gotestsum")
	}
	sample, err := filepath.Abs(filepath.Join("testdata", "sample"))
	require.NoError(t, err)
	run := exec.Command("go", "test", "-json", "-count=1", ".")
	run.Dir = sample
	run.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	stream, err := run.Output()
	require.Error(t, err, "the sample has failing tests")
	events := filepath.Join(t.TempDir(), "events.json")
	require.NoError(t, os.WriteFile(events, stream, 0o644))

	gts, err := exec.Command("go", "tool", "-n", "gotestsum").Output()
	require.NoError(t, err)
	theirs := filepath.Join(t.TempDir(), "gotestsum.xml")
	conv := exec.Command(strings.TrimSpace(string(gts)), "--junitfile", theirs, "--format", "none", "--raw-command", "--", "cat", events)
	conv.Env = append(os.Environ(), "GOVERSION=go-test")
	out, err := conv.CombinedOutput()
	require.NoError(t, err, "%s", out)
	want, err := os.ReadFile(theirs)
	require.NoError(t, err)

	var ours bytes.Buffer
	sum, err := Write(bytes.NewReader(stream), &ours, Options{GoVersion: "go-test", TempDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, Summary{Packages: 1, Tests: 8, Failed: 3, Skipped: 1}, sum)

	wantDoc, wantCases := cases(t, want)
	gotDoc, gotCases := cases(t, ours.Bytes())
	assert.Equal(t, wantCases, gotCases)
	assert.Equal(t, wantDoc.Tests, gotDoc.Tests)
	assert.Equal(t, wantDoc.Failures, gotDoc.Failures)
	require.Len(t, gotDoc.Suites, 1)
	assert.Equal(t, wantDoc.Suites[0].Tests, gotDoc.Suites[0].Tests)
	assert.Equal(t, wantDoc.Suites[0].Skipped, gotDoc.Suites[0].Skipped)
	assert.Contains(t, gotCases["TestFail"].Failure.Contents, `<script>alert("x")</script> & more`, "kept as text, escaped in the file")
	assert.Contains(t, gotCases["TestSubtests/case2"].Failure.Contents, "a control character \uFFFD in it")
	assert.Equal(t, []xmlProperty{{Name: "rook.case", Value: "2"}}, gotCases["TestSubtests/case2"].Properties.Property)
}

func line(action, test, output string) string {
	ev := fmt.Sprintf(`{"Time":"2026-12-04T10:00:00Z","Action":%q,"Package":"p"`, action)
	if test != "" {
		ev += fmt.Sprintf(`,"Test":%q`, test)
	}
	if output != "" {
		ev += fmt.Sprintf(`,"Output":%q`, output)
	}
	return ev + "}\n"
}

// What the stream can make it hold is bounded: a test's output past MaxTestOutput is left
// out, saying so; a line past MaxEvent is cut and counted; a test the stream never ended
// fails; a package that failed with no failed test gets a TestMain case.
func TestHostileStreams(t *testing.T) {
	var in strings.Builder
	in.WriteString("# build output, not an event\n")
	in.WriteString(line("run", "TestLoud", ""))
	chunk := strings.Repeat("x", 64<<10) + "\n"
	for range (MaxTestOutput / len(chunk)) + 4 {
		in.WriteString(line("output", "TestLoud", chunk))
	}
	in.WriteString(line("fail", "TestLoud", ""))
	in.WriteString(`{"Action":"output","Test":"TestHuge","Output":"` + strings.Repeat("y", MaxEvent+10) + "\"}\n")
	in.WriteString(line("run", "TestCut", ""))
	in.WriteString(line("output", "TestCut", "started\n"))
	var out bytes.Buffer
	sum, err := Write(strings.NewReader(in.String()), &out, Options{GoVersion: "v", TempDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, Summary{Packages: 1, Tests: 2, Failed: 2, Errors: 1, Malformed: 2}, sum, "the package never ended: an error")
	_, got := cases(t, out.Bytes())
	loud := got["TestLoud"].Failure.Contents
	assert.LessOrEqual(t, len(loud), MaxTestOutput+200)
	assert.Contains(t, loud, "the rest of this test's output is left out")
	assert.Contains(t, got["TestCut"].Failure.Contents, "started\n\n[rookgen junit: the stream ended while this test ran]")

	out.Reset()
	stream := line("output", "", "panic in TestMain\n") + line("fail", "", "")
	sum, err = Write(strings.NewReader(stream), &out, Options{TempDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, 0, sum.Tests)
	_, got = cases(t, out.Bytes())
	assert.Equal(t, "panic in TestMain\n", got["TestMain"].Failure.Contents)
}

// sampling is a reader that notes the live heap (collected first) after every 1 MiB of the
// stream it gives: its peak is what Write held at most while it read.
type sampling struct {
	r     *bytes.Reader
	reads int
	peak  uint64
	s     []metrics.Sample
}

func (s *sampling) Read(p []byte) (int, error) {
	if s.reads++; s.reads%16 == 0 { // Write reads 64 KiB at a time
		runtime.GC()
		metrics.Read(s.s)
		s.peak = max(s.peak, s.s[0].Value.Uint64())
	}
	return s.r.Read(p)
}

// stream is a go test -json stream of n passing scenarios, two testcases each, with
// output and attributes, as a rookgen suite prints them.
func stream(n int) []byte {
	var s strings.Builder
	s.WriteString(line("run", "TestTiny", ""))
	for i := range n {
		sc := fmt.Sprintf("TestTiny/SC-%05d_scenario_number_%d", i, i)
		c := sc + "/C1_contains_hi"
		for _, l := range []string{line("run", sc, ""), line("output", sc, "=== RUN   "+sc+"\n"),
			`{"Action":"attr","Package":"p","Test":"` + sc + `","Key":"rook.scenario","Value":"SC"}` + "\n",
			line("output", sc, "    execute turn 1: ok in 36 ms\n"), line("run", c, ""),
			`{"Action":"attr","Package":"p","Test":"` + c + `","Key":"rook.status","Value":"Pass"}` + "\n",
			line("output", c, `    Pass: the reply contains "hi"`+"\n"), line("pass", c, ""), line("pass", sc, "")} {
			s.WriteString(l)
		}
	}
	s.WriteString(line("pass", "TestTiny", "") + line("pass", "", ""))
	return []byte(s.String())
}

// BenchmarkWrite converts streams of 1,000 and 20,000 passing scenarios in each iteration
// and reports the live heap's peak during each above what it was when it started, and
// their ratio: about 1 means the converter holds nothing per finished test.
func BenchmarkWrite(b *testing.B) {
	sizes := []int{1000, 20000}
	data := map[int][]byte{}
	for _, n := range sizes {
		data[n] = stream(n)
	}
	peak := map[int]uint64{}
	for b.Loop() {
		for _, n := range sizes {
			runtime.GC()
			r := &sampling{r: bytes.NewReader(data[n]), s: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
			metrics.Read(r.s)
			base := r.s[0].Value.Uint64() // the streams themselves, held by the benchmark
			if _, err := Write(r, io.Discard, Options{TempDir: b.TempDir()}); err != nil {
				b.Fatal(err)
			}
			peak[n] = max(peak[n], r.peak-min(base, r.peak))
		}
	}
	b.ReportMetric(float64(peak[1000])/1e6, "peak-heap-MB@1000")
	b.ReportMetric(float64(peak[20000])/1e6, "peak-heap-MB@20000")
	b.ReportMetric(float64(peak[20000])/float64(peak[1000]), "peak-20000-vs-1000")
}

// A package that did not build is an error of its package, as gotestsum counts it: its
// suite's failure holds the compiler's output, and no nameless suite is made of the build
// output. The totals are gotestsum's for the same stream.
func TestABuildFailureIsItsPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test and gotestsum")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module bf\n\ngo 1.26\n",
		"ok/ok_test.go":    "package ok\nimport \"testing\"\nfunc TestOK(t *testing.T) {}\n",
		"broken/b_test.go": "package broken\nimport \"testing\"\nfunc TestX(t *testing.T) { undefinedThing() }\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	run := exec.Command("go", "test", "-json", "./ok", "./broken")
	run.Dir = dir
	run.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	stream, _ := run.Output()
	require.Contains(t, string(stream), `"build-fail"`)
	var ours bytes.Buffer
	sum, err := Write(bytes.NewReader(stream), &ours, Options{TempDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, Summary{Packages: 2, Tests: 1, Failed: 1, Errors: 1}, sum)
	d, got := cases(t, ours.Bytes())
	for _, s := range d.Suites {
		assert.NotEmpty(t, s.Name, "no nameless suite")
	}
	assert.Contains(t, got["TestMain"].Failure.Contents, "undefined: undefinedThing", "the compiler's output is the package's failure")
	assert.Contains(t, got["TestMain"].Failure.Contents, "FAIL\tbf/broken [build failed]")
	assert.Contains(t, ours.String(), `<testsuites tests="1" failures="1" errors="1"`)

	gts, err := exec.Command("go", "tool", "-n", "gotestsum").Output()
	require.NoError(t, err)
	events := filepath.Join(t.TempDir(), "events.json")
	require.NoError(t, os.WriteFile(events, stream, 0o644))
	theirs := filepath.Join(t.TempDir(), "gotestsum.xml")
	out, err := exec.Command(strings.TrimSpace(string(gts)), "--junitfile", theirs, "--format", "none", "--raw-command", "--", "cat", events).CombinedOutput()
	require.NoError(t, err, "%s", out)
	want, err := os.ReadFile(theirs)
	require.NoError(t, err)
	assert.Contains(t, string(want), `<testsuites tests="1" failures="1" errors="1"`, "gotestsum's totals")
}

// A stream that holds no event of any package is an error; a package whose end the stream
// never showed failed, even when every test it started passed.
func TestAStreamWithoutEndsFails(t *testing.T) {
	for _, empty := range []string{"", "go: no packages to test\n", `{"Action":"output","Output":"x"}` + "\n"} {
		_, err := Write(strings.NewReader(empty), io.Discard, Options{TempDir: t.TempDir()})
		assert.ErrorContains(t, err, "the stream holds no go test -json event of any package", "%q", empty)
	}
	var out bytes.Buffer
	sum, err := Write(strings.NewReader(line("run", "TestA", "")+line("pass", "TestA", "")), &out, Options{TempDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, Summary{Packages: 1, Tests: 1, Failed: 1, Errors: 1}, sum)
	_, got := cases(t, out.Bytes())
	assert.Contains(t, got["TestMain"].Failure.Contents, "the stream ended before package p did")
}

// However many packages the stream holds, the converter keeps a bounded number of files
// open: 1,100 packages, interleaved as go test -p runs them, under an fd limit of 1,024.
func TestManyPackagesKeepFewFilesOpen(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts this process's open files in /proc")
	}
	var in strings.Builder
	const n = 1100
	for i := range n {
		in.WriteString(strings.ReplaceAll(line("run", "TestA", ""), `"p"`, fmt.Sprintf(`"p%d"`, i)))
		in.WriteString(strings.ReplaceAll(line("pass", "TestA", ""), `"p"`, fmt.Sprintf(`"p%d"`, i)))
	}
	for i := range n {
		in.WriteString(strings.ReplaceAll(line("pass", "", ""), `"p"`, fmt.Sprintf(`"p%d"`, i)))
	}
	open := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		require.NoError(t, err)
		return len(fds)
	}
	before := open()
	r := &fdCounting{r: strings.NewReader(in.String()), count: open}
	var out bytes.Buffer
	sum, err := Write(r, &out, Options{TempDir: t.TempDir()})
	require.NoError(t, err)
	assert.Equal(t, n, sum.Packages)
	assert.Equal(t, n, sum.Tests)
	assert.LessOrEqual(t, r.most-before, 2, "files open while the stream was read")
	assert.Equal(t, n, strings.Count(out.String(), `<testcase classname="p`))
}

// fdCounting notes the most files the process had open at any read.
type fdCounting struct {
	r     io.Reader
	count func() int
	most  int
}

func (f *fdCounting) Read(p []byte) (int, error) {
	f.most = max(f.most, f.count())
	return f.r.Read(p)
}
