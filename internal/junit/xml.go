package junit

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"unicode/utf8"
)

const header = xml.Header

// xmlCase is one testcase element, as gotestsum writes it.
type xmlCase struct {
	XMLName    xml.Name       `xml:"testcase"`
	Classname  string         `xml:"classname,attr"`
	Name       string         `xml:"name,attr"`
	Time       string         `xml:"time,attr"`
	Properties *xmlProperties `xml:"properties,omitempty"`
	Skipped    *xmlSkipped    `xml:"skipped,omitempty"`
	Failure    *xmlFailure    `xml:"failure,omitempty"`
}

type xmlProperties struct {
	Property []xmlProperty `xml:"property"`
}

type xmlProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type xmlSkipped struct {
	Message string `xml:"message,attr"`
}

type xmlFailure struct {
	Message  string `xml:"message,attr"`
	Type     string `xml:"type,attr"`
	Contents string `xml:",chardata"`
}

// encodeCase writes one testcase, indented as the suite's child. Text that XML cannot
// hold (invalid UTF-8, control characters a test printed) is replaced, never dropped.
func encodeCase(w *bytes.Buffer, tc xmlCase) error {
	tc.Name, tc.Classname = clean(tc.Name), clean(tc.Classname)
	if tc.Properties != nil {
		for i := range tc.Properties.Property {
			p := &tc.Properties.Property[i]
			p.Name, p.Value = clean(p.Name), clean(p.Value)
		}
	}
	if tc.Failure != nil {
		tc.Failure.Contents = clean(tc.Failure.Contents)
	}
	if tc.Skipped != nil {
		tc.Skipped.Message = clean(tc.Skipped.Message)
	}
	b, err := xml.MarshalIndent(tc, "\t\t", "\t")
	if err != nil {
		return fmt.Errorf("encode testcase %s: %w", tc.Name, err)
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	return w.WriteByte('\n')
}

// attr is s as a quoted XML attribute value.
func attr(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	_ = xml.EscapeText(&b, []byte(clean(s))) // writes to a buffer
	b.WriteByte('"')
	return b.String()
}

// clean replaces what XML 1.0 cannot hold: invalid UTF-8 and the control characters but
// tab, newline and carriage return.
func clean(s string) string {
	ok := utf8.ValidString(s)
	if ok {
		for _, r := range s {
			if !allowed(r) {
				ok = false
				break
			}
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if allowed(r) {
			b.WriteRune(r)
		} else {
			b.WriteRune('\uFFFD')
		}
	}
	return b.String()
}

func allowed(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}
