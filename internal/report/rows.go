package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"runtime"
	"strings"

	"gopkg.in/yaml.v3"
)

// Rows are a list of a report, in the run's order, kept in a temporary file rather than in
// memory: a report of a run of thousands of scenarios writes each row as it reads the
// scenario's records, and reads the rows back, one at a time, each time it renders them.
// The report's Close removes the file.
//
// The file holds one JSON line a row, the row as the JSON report writes it. It is
// unlinked as soon as it is made, except on Windows, so that a process killed while it
// writes a report leaves nothing behind.
type Rows[T any] struct {
	f      *os.File
	w      *bufio.Writer
	n      int
	err    error // the first error writing or reading the file
	closed bool
	// mark, while the YAML report is written, stands for the rows in it, to be replaced by
	// them one at a time (Report.YAML).
	mark string
}

// add appends row.
func (l *Rows[T]) add(row T) {
	if l.err != nil || l.gone() {
		return
	}
	if l.f == nil {
		f, err := os.CreateTemp("", "rook-report-*.jsonl")
		if err != nil {
			l.err = fmt.Errorf("keep a report's rows: %w", err)
			return
		}
		if runtime.GOOS != "windows" {
			// Unlinked at once, the file goes when the process does, however it ends;
			// Windows does not remove an open file, so there close removes it.
			_ = os.Remove(f.Name())
		}
		l.f, l.w = f, bufio.NewWriter(f)
	}
	b, err := json.Marshal(row)
	if err == nil {
		b = append(b, '\n')
		_, err = l.w.Write(b)
	}
	if err != nil {
		l.err = fmt.Errorf("keep a report's rows in %s: %w", l.f.Name(), err)
		return
	}
	l.n++
}

// Len is how many rows there are.
func (l *Rows[T]) Len() int { return l.n }

// All yields the rows in order. A row that cannot be read back ends it, and Err says why.
func (l *Rows[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		if l.n == 0 || l.err != nil || l.gone() {
			return
		}
		if err := l.w.Flush(); err != nil {
			l.err = fmt.Errorf("keep a report's rows in %s: %w", l.f.Name(), err)
			return
		}
		dec := json.NewDecoder(io.NewSectionReader(l.f, 0, 1<<62))
		for range l.n {
			var row T
			if err := dec.Decode(&row); err != nil {
				l.err = fmt.Errorf("read a report's rows back from %s: %w", l.f.Name(), err)
				return
			}
			if !yield(row) {
				return
			}
		}
	}
}

// First is the first row, if there is one.
func (l *Rows[T]) First() (T, bool) {
	for row := range l.All() {
		return row, true
	}
	var zero T
	return zero, false
}

// edit changes every row in place with f: it writes them, changed, to a new file.
func (l *Rows[T]) edit(f func(*T)) {
	if l.n == 0 || l.err != nil {
		return
	}
	var next Rows[T]
	for row := range l.All() {
		f(&row)
		next.add(row)
	}
	err := errors.Join(l.err, next.err)
	l.close()
	*l = next
	l.err = err
}

// Err is the first error keeping or reading the rows: a report whose rows are not all
// there must not be written as if they were.
func (l *Rows[T]) Err() error { return l.err }

// close removes the file; the rows are gone.
func (l *Rows[T]) close() {
	l.closed = true
	if l.f == nil {
		return
	}
	_ = l.f.Close()
	_ = os.Remove(l.f.Name())
	l.f, l.w = nil, nil
}

// gone reports whether the rows were closed, which is an error to read or add to: a report
// read after its Close must not read as one without rows.
func (l *Rows[T]) gone() bool {
	if l.closed && l.err == nil {
		l.err = errors.New("a report's rows were read after the report was closed")
	}
	return l.closed
}

// MarshalJSON writes the rows as a JSON list: the JSON report.
func (l *Rows[T]) MarshalJSON() ([]byte, error) {
	var b []byte
	b = append(b, '[')
	k := 0
	for row := range l.All() {
		if k > 0 {
			b = append(b, ',')
		}
		one, err := json.Marshal(row)
		if err != nil {
			return nil, err
		}
		b = append(b, one...)
		k++
	}
	if l.err != nil {
		return nil, l.err
	}
	return append(b, ']'), nil
}

// MarshalYAML writes the rows as a YAML list: the YAML report. (On a copy of the list:
// the YAML encoder does not take a field's address.)
func (l Rows[T]) MarshalYAML() (any, error) {
	if l.mark != "" {
		return l.mark, nil
	}
	out := make([]T, 0, l.n)
	for row := range l.All() {
		out = append(out, row)
	}
	return out, l.err
}

// writeYAML writes the rows as the YAML list under key, at the top level of a document
// encoded with an indent of 2, one row at a time: "key: []" when there are none.
func (l *Rows[T]) writeYAML(w io.Writer, key string) error {
	if l.n == 0 {
		_, err := fmt.Fprintf(w, "%s: []\n", key)
		return err
	}
	if _, err := fmt.Fprintf(w, "%s:\n", key); err != nil {
		return err
	}
	var one bytes.Buffer
	for row := range l.All() {
		one.Reset()
		enc := yaml.NewEncoder(&one)
		enc.SetIndent(2)
		if err := enc.Encode(row); err != nil {
			return err
		}
		if err := enc.Close(); err != nil {
			return err
		}
		// The row's mapping as an item of the list: "  - " before its first line, four
		// spaces before the others.
		for i, line := range strings.SplitAfter(strings.TrimSuffix(one.String(), "\n"), "\n") {
			prefix := "    "
			if i == 0 {
				prefix = "  - "
			}
			if _, err := io.WriteString(w, prefix+line); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
	}
	return l.err
}
