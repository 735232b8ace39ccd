// Package junit writes a JUnit XML report from a go test -json event stream as the stream
// is read, in memory that does not grow with the number of tests: each test's output is
// held only while it runs (and dropped when it passes), each finished test case is
// written to a spool file of its package, and the document is put together from the
// spools at the end. The report has gotestsum's shape (one testsuite per package, one
// testcase per test and subtest, a test's attributes as its properties, a failure's or a
// skip's output as its body), so CI systems read it alike.
package junit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Bounds on what the stream can make the writer hold.
const (
	// MaxEvent bounds one event's line; a longer one is cut and counted as malformed.
	MaxEvent = 4 << 20
	// MaxTestOutput bounds the output kept of one running test; what is past it is
	// dropped, and the report says so.
	MaxTestOutput = 1 << 20
	// MaxHeld bounds the output kept of all running tests together.
	MaxHeld = 64 << 20
)

// event is one go test -json event.
type event struct {
	Time    time.Time `json:"Time"`
	Action  string    `json:"Action"`
	Package string    `json:"Package"`
	Test    string    `json:"Test"`
	Output  string    `json:"Output"`
	Elapsed float64   `json:"Elapsed"`
	Key     string    `json:"Key"`
	Value   string    `json:"Value"`
	// ImportPath names the package a build-output or build-fail event is of ("p [p.test]"),
	// and FailedBuild the one whose build failed, on the package's fail event.
	ImportPath  string `json:"ImportPath"`
	FailedBuild string `json:"FailedBuild"`
}

// Summary counts what the report holds.
type Summary struct {
	Packages, Tests, Failed, Skipped int
	// Errors counts the packages that did not build, or whose end the stream never showed.
	Errors int
	// Malformed counts lines of the stream that were not events (build output, a cut line).
	Malformed int
}

// Options name what the document says of where it was made.
type Options struct {
	// GoVersion is the go.version property of each suite.
	GoVersion string
	// TempDir is where the spools are written ("" for the system's).
	TempDir string
}

// Write reads the event stream r and writes the JUnit document to w.
func Write(r io.Reader, w io.Writer, opts Options) (Summary, error) {
	spool, err := os.MkdirTemp(opts.TempDir, "rookgen-junit-")
	if err != nil {
		return Summary{}, fmt.Errorf("create the junit spool: %w", err)
	}
	defer func() { _ = os.RemoveAll(spool) }() // scratch space
	c := &converter{dir: spool, pkgs: map[string]*suite{}, build: map[string]*held{}}
	if err := c.read(r); err != nil {
		return c.sum, err
	}
	if err := c.finish(); err != nil {
		return c.sum, err
	}
	if c.sum.Packages == 0 {
		return c.sum, errors.New("the stream holds no go test -json event of any package: was it go test -json's output?")
	}
	return c.sum, c.assemble(w, opts.GoVersion)
}

// read applies every event of the stream.
func (c *converter) read(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			var ev event
			if line[0] != '{' || json.Unmarshal(line, &ev) != nil || ev.Action == "" {
				c.sum.Malformed++
			} else if err := c.apply(ev); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read the go test -json stream: %w", err)
		}
	}
}

// readLine reads one line of at most MaxEvent bytes; the rest of a longer line is skipped
// and the cut line returned (it then fails to decode, and is counted as malformed).
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= MaxEvent {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(line), err
	}
}

// suite is one package's testsuite being written. Its finished test cases are written to
// its spool file a batch at a time (spoolBatch), the file opened for each batch: however
// many packages the stream holds, at most one file is open.
type suite struct {
	name         string
	start        time.Time
	elapsed      float64
	ended        bool
	failed       bool
	tests, fails int
	skips        int
	spool        string
	out          bytes.Buffer
	running      map[string]*test
	pkgOutput    held
}

// spoolBatch is how much of a package's finished cases is held before it is written out.
const spoolBatch = 32 << 10

// held is output kept within MaxTestOutput.
type held struct {
	lines []string
	size  int
}

func (h *held) add(line string) {
	if h.size+len(line) <= MaxTestOutput {
		h.lines, h.size = append(h.lines, line), h.size+len(line)
	}
}

// test is one running test: its output and attributes so far.
type test struct {
	output []string
	size   int
	cut    bool
	attrs  map[string]string
}

type converter struct {
	dir  string
	pkgs map[string]*suite
	// build is the build output of each package that printed some, by ImportPath, until
	// its package claims it.
	build map[string]*held
	// order is the packages in the order they first appeared.
	order []string
	held  int
	sum   Summary
}

func (c *converter) suite(ev event) (*suite, error) {
	s := c.pkgs[ev.Package]
	if s != nil {
		return s, nil
	}
	s = &suite{name: ev.Package, start: ev.Time, spool: filepath.Join(c.dir, fmt.Sprintf("suite-%d", len(c.order))), running: map[string]*test{}}
	c.pkgs[ev.Package] = s
	c.order = append(c.order, ev.Package)
	return s, nil
}

// apply takes one event: a test's run, output, attribute and end, or the package's, or a
// package's build output.
func (c *converter) apply(ev event) error {
	if ev.Package == "" {
		if ev.ImportPath == "" {
			c.sum.Malformed++ // an event of no package
			return nil
		}
		b := c.build[ev.ImportPath]
		if b == nil {
			b = &held{}
			c.build[ev.ImportPath] = b
		}
		if ev.Action == "build-output" {
			b.add(ev.Output)
		}
		return nil
	}
	s, err := c.suite(ev)
	if err != nil {
		return err
	}
	if ev.Test == "" {
		return c.packageEvent(s, ev)
	}
	t := s.running[ev.Test]
	if t == nil {
		t = &test{}
		s.running[ev.Test] = t
	}
	switch ev.Action {
	case "output":
		c.hold(t, ev.Output)
	case "attr":
		if t.attrs == nil {
			t.attrs = map[string]string{}
		}
		t.attrs[ev.Key] = ev.Value
	case "pass", "fail", "skip":
		delete(s.running, ev.Test)
		c.held -= t.size
		return c.testcase(s, ev, t)
	}
	return nil
}

// hold keeps a running test's output line, within the bounds.
func (c *converter) hold(t *test, line string) {
	if t.size+len(line) > MaxTestOutput || c.held+len(line) > MaxHeld {
		t.cut = true
		return
	}
	t.output = append(t.output, line)
	t.size += len(line)
	c.held += len(line)
}

func (c *converter) packageEvent(s *suite, ev event) error {
	switch ev.Action {
	case "output":
		s.pkgOutput.add(ev.Output)
	case "pass", "fail", "skip":
		s.ended, s.elapsed, s.failed = true, ev.Elapsed, ev.Action == "fail"
		if b := c.build[ev.FailedBuild]; ev.FailedBuild != "" {
			// The build's errors are the package's failure, before its FAIL line.
			c.sum.Errors++
			if b != nil {
				s.pkgOutput.lines = append(append([]string(nil), b.lines...), s.pkgOutput.lines...)
				delete(c.build, ev.FailedBuild)
			}
		}
		return c.flush(s)
	}
	return nil
}

// flush writes s's finished cases held so far to its spool.
func (c *converter) flush(s *suite) error {
	if s.out.Len() == 0 {
		return nil
	}
	f, err := os.OpenFile(s.spool, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("write the spool of package %s: %w", s.name, err)
	}
	_, err = s.out.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write the spool of package %s: %w", s.name, err)
	}
	return nil
}

// testcase writes a finished test to its package's spool.
func (c *converter) testcase(s *suite, ev event, t *test) error {
	s.tests++
	c.sum.Tests++
	tc := xmlCase{Classname: s.name, Name: ev.Test, Time: seconds(ev.Elapsed)}
	if len(t.attrs) > 0 {
		keys := make([]string, 0, len(t.attrs))
		for k := range t.attrs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		tc.Properties = &xmlProperties{}
		for _, k := range keys {
			tc.Properties.Property = append(tc.Properties.Property, xmlProperty{Name: k, Value: t.attrs[k]})
		}
	}
	body := strings.Join(t.output, "")
	if t.cut {
		body += fmt.Sprintf("\n[rookgen junit: the rest of this test's output is left out: over %d bytes]\n", MaxTestOutput)
	}
	switch ev.Action {
	case "fail":
		s.fails++
		c.sum.Failed++
		tc.Failure = &xmlFailure{Message: "Failed", Contents: body}
	case "skip":
		s.skips++
		c.sum.Skipped++
		tc.Skipped = &xmlSkipped{Message: body}
	}
	if err := encodeCase(&s.out, tc); err != nil {
		return err
	}
	if s.out.Len() >= spoolBatch {
		return c.flush(s)
	}
	return nil
}

// finish ends what the stream left open: a test still running when the stream ended (the
// binary died) is a failure with its output, and a package that failed with no failed
// test gets gotestsum's TestMain case with the package's output.
func (c *converter) finish() error {
	for _, name := range c.order {
		s := c.pkgs[name]
		names := make([]string, 0, len(s.running))
		for n := range s.running {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			t := s.running[n]
			t.output = append(t.output, "\n[rookgen junit: the stream ended while this test ran]\n")
			if err := c.testcase(s, event{Action: "fail", Test: n}, t); err != nil {
				return err
			}
		}
		if !s.ended {
			// The test binary died, or the stream was cut: the package failed.
			c.sum.Errors++
			s.failed = true
			s.pkgOutput.lines = append(s.pkgOutput.lines, fmt.Sprintf("\n[rookgen junit: the stream ended before package %s did]\n", name))
		}
		if s.failed && s.fails == 0 {
			t := &test{output: s.pkgOutput.lines}
			if err := c.testcase(s, event{Action: "fail", Test: "TestMain", Elapsed: s.elapsed}, t); err != nil {
				return err
			}
			s.tests-- // gotestsum does not count it among the tests
			c.sum.Tests--
		}
		if err := c.flush(s); err != nil {
			return err
		}
	}
	if err := c.unclaimedBuilds(); err != nil {
		return err
	}
	c.sum.Packages = len(c.order)
	return nil
}

// unclaimedBuilds makes a failed package of each build whose output no package's end
// claimed (a package with no tests that did not build): named by its import path.
func (c *converter) unclaimedBuilds() error {
	paths := make([]string, 0, len(c.build))
	for p := range c.build {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		name, _, _ := strings.Cut(p, " ")
		s, err := c.suite(event{Package: name})
		if err != nil {
			return err
		}
		c.sum.Errors++
		s.ended, s.failed = true, true
		if err := c.testcase(s, event{Action: "fail", Test: "TestMain"}, &test{output: c.build[p].lines}); err != nil {
			return err
		}
		s.tests--
		c.sum.Tests--
		if err := c.flush(s); err != nil {
			return err
		}
	}
	return nil
}

// assemble writes the document: the totals, then each package's suite around its spool.
func (c *converter) assemble(w io.Writer, goVersion string) error {
	bw := bufio.NewWriter(w)
	var total float64
	for _, name := range c.order {
		total += c.pkgs[name].elapsed
	}
	fmt.Fprintf(bw, "%s<testsuites tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%s\">\n", header, c.sum.Tests, c.sum.Failed, c.sum.Errors, seconds(total))
	for _, name := range c.order {
		s := c.pkgs[name]
		skipped := ""
		if s.skips > 0 {
			skipped = fmt.Sprintf(" skipped=\"%d\"", s.skips)
		}
		fmt.Fprintf(bw, "\t<testsuite tests=\"%d\" failures=\"%d\"%s time=\"%s\" name=%s timestamp=\"%s\">\n",
			s.tests, s.fails, skipped, seconds(s.elapsed), attr(s.name), s.start.Format(time.RFC3339))
		fmt.Fprintf(bw, "\t\t<properties>\n\t\t\t<property name=\"go.version\" value=%s></property>\n\t\t</properties>\n", attr(goVersion))
		if err := copyFile(bw, s.spool); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("read the spool of package %s: %w", name, err)
		}
		_, _ = bw.WriteString("\t</testsuite>\n") // a bufio.Writer's error sticks: Flush returns it
	}
	_, _ = bw.WriteString("</testsuites>\n")
	return bw.Flush()
}

// copyFile copies the file at path to w, the file open only meanwhile.
func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }() // read only
	_, err = io.Copy(w, f)
	return err
}

func seconds(s float64) string { return fmt.Sprintf("%f", s) }
