// Package sample is a test package whose go test -json stream the junit package's tests
// convert: passes, a failure, a skip, parallel subtests with attributes, a failing
// subtest, and output XML must escape.
package sample

import (
	"fmt"
	"testing"
	"time"
)

func TestPass(t *testing.T) {
	t.Log("hello")
	t.Attr("rook.status", "Pass")
}

func TestFail(t *testing.T) {
	t.Log(`why it failed: <script>alert("x")</script> & more`)
	t.Error("boom")
}

func TestSkip(t *testing.T) {
	t.Skip("not today")
}

func TestSubtests(t *testing.T) {
	for i := range 4 {
		t.Run(fmt.Sprint("case", i), func(t *testing.T) {
			t.Parallel()
			t.Attr("rook.case", fmt.Sprint(i))
			time.Sleep(time.Duration(4-i) * 5 * time.Millisecond)
			if i == 2 {
				t.Error("sub failed with a control character \x01 in it")
			}
			t.Log("case done")
		})
	}
}
