package rooktest

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// tb is the part of *testing.T the runtime uses, and no more. The exported API takes *testing.T and
// wraps it; the core (start, the scheduler, the report mapping) works on tb, so that it is
// tested in-process against a recording fake, as testscript's Run is a thin layer over RunT.
type tb interface {
	Name() string
	Output() io.Writer
	Fail()
	FailNow()
	SkipNow()
	Helper()
	Logf(format string, args ...any)
	Failed() bool
	Skipped() bool
	Attr(key, value string)
	Parallel()
	Cleanup(func())
	Context() context.Context
	Deadline() (time.Time, bool)
	// Run runs f as a subtest named name.
	Run(name string, f func(tb)) bool
}

// tshim is a *testing.T as a tb.
type tshim struct{ *testing.T }

func (t tshim) Run(name string, f func(tb)) bool {
	return t.T.Run(name, func(t *testing.T) { f(tshim{t}) })
}

// What rooktest reports is about the scenario, not about rooktest's own files: it is
// written to the test's output without a source location (t.Output), then the test is
// failed or skipped as testing's Error, Skip and Fatal would.

func logf(t tb, format string, args ...any) { fmt.Fprintf(t.Output(), format+"\n", args...) }

func logln(t tb, args ...any) { fmt.Fprintln(t.Output(), fmt.Sprint(args...)) }

func errorf(t tb, format string, args ...any) { logf(t, format, args...); t.Fail() }

func errorln(t tb, args ...any) { logln(t, args...); t.Fail() }

func skipf(t tb, format string, args ...any) { logf(t, format, args...); t.SkipNow() }

func skipln(t tb, args ...any) { logln(t, args...); t.SkipNow() }

func fatalf(t tb, format string, args ...any) { logf(t, format, args...); t.FailNow() }

func fatalln(t tb, args ...any) { logln(t, args...); t.FailNow() }

// maxAttr bounds an attribute's value: JUnit properties are one line each.
const maxAttr = 256

// attr gives t an attribute whose value is one line (testing fails a test whose attribute
// holds a newline) of at most maxAttr bytes: values come from records that hooks and judge
// servers wrote.
func attr(t tb, key, value string) {
	value = strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`).Replace(value)
	if len(value) > maxAttr {
		cut := maxAttr - len("...")
		for cut > 0 && !utf8.RuneStart(value[cut]) {
			cut--
		}
		value = value[:cut] + "..."
	}
	t.Attr(key, value)
}
